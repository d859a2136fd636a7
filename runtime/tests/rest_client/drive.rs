//! The two ways the cases drive the client: the blocking one, and the async one on a tokio runtime.

use energy_api::rest::{Endpoint, Page};
use energy_runtime::rest::{Client, ClientConfig, Error};
use serde::de::DeserializeOwned;

/// One way to drive the client: the blocking one, or the async one on a tokio runtime.
pub(crate) trait Api {
    /// Every record of a list, and the error that ended it, if one did.
    fn items<E, T>(&self, config: ClientConfig, endpoint: &E) -> (Vec<T>, Option<Error>)
    where
        E: Endpoint<Response = Page<T>>,
        T: Send + 'static,
        Page<T>: DeserializeOwned;

    /// The first `n` records of a list.
    fn first_items<E, T>(&self, config: ClientConfig, endpoint: &E, n: usize) -> Vec<T>
    where
        E: Endpoint<Response = Page<T>>,
        T: Send + 'static,
        Page<T>: DeserializeOwned;

    /// Every page of a list, with the error that ended it.
    fn pages<E, T>(&self, config: ClientConfig, endpoint: &E) -> (Vec<Page<T>>, Option<Error>)
    where
        E: Endpoint<Response = Page<T>>,
        T: Send + 'static,
        Page<T>: DeserializeOwned;

    /// One call.
    fn send<E: Endpoint>(&self, config: ClientConfig, endpoint: &E) -> Result<E::Response, Error>
    where
        E::Response: Send + 'static;
}

/// Splits results into the values and the error that ended them; nothing may follow an error.
fn split<T>(results: impl IntoIterator<Item = Result<T, Error>>) -> (Vec<T>, Option<Error>) {
    let mut values = Vec::new();
    let mut error = None;
    for result in results {
        assert!(error.is_none(), "a result came after the error {error:?}");
        match result {
            Ok(value) => values.push(value),
            Err(e) => error = Some(e),
        }
    }
    (values, error)
}

pub(crate) struct Blocking;

impl Api for Blocking {
    fn items<E, T>(&self, config: ClientConfig, endpoint: &E) -> (Vec<T>, Option<Error>)
    where
        E: Endpoint<Response = Page<T>>,
        T: Send + 'static,
        Page<T>: DeserializeOwned,
    {
        split(Client::new(config).items(endpoint))
    }

    fn first_items<E, T>(&self, config: ClientConfig, endpoint: &E, n: usize) -> Vec<T>
    where
        E: Endpoint<Response = Page<T>>,
        T: Send + 'static,
        Page<T>: DeserializeOwned,
    {
        let (items, error) = split(Client::new(config).items(endpoint).take(n));
        assert!(error.is_none(), "{error:?}");
        items
    }

    fn pages<E, T>(&self, config: ClientConfig, endpoint: &E) -> (Vec<Page<T>>, Option<Error>)
    where
        E: Endpoint<Response = Page<T>>,
        T: Send + 'static,
        Page<T>: DeserializeOwned,
    {
        split(Client::new(config).pages(endpoint))
    }

    fn send<E: Endpoint>(&self, config: ClientConfig, endpoint: &E) -> Result<E::Response, Error> {
        Client::new(config).send(endpoint)
    }
}

#[cfg(feature = "async")]
pub(crate) struct Async;

#[cfg(feature = "async")]
impl Async {
    fn block_on<F: std::future::Future>(future: F) -> F::Output {
        tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .expect("a tokio runtime")
            .block_on(future)
    }

    pub(crate) fn client(config: ClientConfig) -> energy_runtime::rest::AsyncClient {
        energy_runtime::rest::AsyncClient::new(config).expect("an async client")
    }
}

#[cfg(feature = "async")]
impl Api for Async {
    fn items<E, T>(&self, config: ClientConfig, endpoint: &E) -> (Vec<T>, Option<Error>)
    where
        E: Endpoint<Response = Page<T>>,
        T: Send + 'static,
        Page<T>: DeserializeOwned,
    {
        use futures_util::StreamExt as _;
        split(Self::block_on(async {
            Self::client(config)
                .items(endpoint)
                .collect::<Vec<_>>()
                .await
        }))
    }

    fn first_items<E, T>(&self, config: ClientConfig, endpoint: &E, n: usize) -> Vec<T>
    where
        E: Endpoint<Response = Page<T>>,
        T: Send + 'static,
        Page<T>: DeserializeOwned,
    {
        use futures_util::StreamExt as _;
        let (items, error) = split(Self::block_on(async {
            Self::client(config)
                .items(endpoint)
                .take(n)
                .collect::<Vec<_>>()
                .await
        }));
        assert!(error.is_none(), "{error:?}");
        items
    }

    fn pages<E, T>(&self, config: ClientConfig, endpoint: &E) -> (Vec<Page<T>>, Option<Error>)
    where
        E: Endpoint<Response = Page<T>>,
        T: Send + 'static,
        Page<T>: DeserializeOwned,
    {
        use futures_util::StreamExt as _;
        split(Self::block_on(async {
            Self::client(config)
                .pages(endpoint)
                .collect::<Vec<_>>()
                .await
        }))
    }

    fn send<E: Endpoint>(&self, config: ClientConfig, endpoint: &E) -> Result<E::Response, Error> {
        Self::block_on(async { Self::client(config).send(endpoint).await })
    }
}
