//! A typed server of the energy platform's REST API, on axum 0.8 (tower, hyper 1).
//!
//! The generated crate declares the API's operations (`energy_api::rest::server`, feature `server`):
//! a row per operation (method, path, parameters and their rules, authentication), a response enum per
//! operation, and [`Api`], the trait with one `async fn` per operation that a team serving the API
//! implements. This crate is the machinery, written once: [`Server`] turns an `Api` into an axum
//! `Router` where every request is checked against its operation's rules before a handler sees it,
//! every refusal is the API's JSON error body (every violation at once), pages get their links, and
//! [`serve`] runs it with TLS, limits and a graceful stop. [`DataSet`] is an `Api` over JSON files as
//! the API returns them: `energy serve`, and the example to read.
//!
//! ```no_run
//! use energy_api::rest::server::{Api, GetAccountResponse, GetProductResponse, ListProductsResponse,
//!     ListStandardUnitRatesResponse};
//! use energy_api::rest::{GetAccount, GetProduct, ListProducts, ListStandardUnitRates, Page};
//! use energy_server::{Keys, KeyHolder, PublicUrl, RouterConfig, Server, ServerError};
//!
//! struct Shop;
//!
//! impl Api for Shop {
//!     type Principal = KeyHolder;
//!
//!     async fn list_products(&self, request: ListProducts) -> Result<ListProductsResponse, ServerError> {
//!         let products = Vec::new(); // filtered by request.brand, request.is_green, …
//!         Ok(ListProductsResponse::Ok(energy_server::paginate(products, request.page, request.page_size)?))
//!     }
//!     async fn get_product(&self, request: GetProduct) -> Result<GetProductResponse, ServerError> {
//!         Err(ServerError::not_found(format!("no product {}", request.product_code)))
//!     }
//!     async fn list_standard_unit_rates(&self, request: ListStandardUnitRates)
//!         -> Result<ListStandardUnitRatesResponse, ServerError> {
//!         Ok(ListStandardUnitRatesResponse::Ok(energy_server::paginate(Vec::new(), request.page, None)?))
//!     }
//!     async fn get_account(&self, request: GetAccount, _who: &KeyHolder)
//!         -> Result<GetAccountResponse, ServerError> {
//!         Err(ServerError::not_found(format!("no account {}", request.account_number)))
//!     }
//! }
//!
//! # async fn run() -> Result<(), Box<dyn std::error::Error>> {
//! let config = RouterConfig::new(PublicUrl::parse("http://127.0.0.1:8080")?);
//! let router = Server::new(Shop, Keys::new().api_key("sk_test_1"), config).router();
//! let listener = tokio::net::TcpListener::bind("127.0.0.1:8080").await?;
//! energy_server::serve(listener, router, None, Default::default(), std::future::pending()).await;
//! # Ok(())
//! # }
//! ```
#![forbid(unsafe_code)]

mod auth;
pub mod dataset;
mod links;
mod metrics;
mod page;
mod prefer;
mod router;
mod serve;
mod trace;

pub use auth::{Authenticate, Credentials, KeyHolder, Keys, Refusal, Secret};
pub use dataset::DataSet;
pub use energy_api::rest::server::Api;
pub use energy_api::rest::server::{Location, Operation, ServerError, Violation};
pub use links::{PublicUrl, TrustedProxies};
pub use metrics::ServerMetrics;
pub use page::{paginate, paginate_cloned};
pub use router::{Inspect, PAGE_SIZE, Peer, RouterConfig, Server};
pub use serve::{Limits, is_loopback, serve, tls_config};
