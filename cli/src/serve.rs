//! `energy serve`: the REST API served from a data set (`--data DIR`, JSON files as the API returns
//! them) or from the documents' own examples (`--mock`), by every rule of the spec, for client teams
//! to test against. The server is `energy_server`'s, on `energy_server::DataSet`.

use crate::exit::Exit;
use crate::rest::secret_file;
use clap::Args;
use energy_server::{DataSet, Keys, Limits, PublicUrl, RouterConfig, Server, TrustedProxies};
use std::net::SocketAddr;
use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Duration;

/// `energy serve`'s arguments.
#[derive(Args)]
#[command(group = clap::ArgGroup::new("source").required(true))]
pub struct ServeArgs {
    /// A folder of JSON files as the API returns them (products pages, products, unit-rate pages,
    /// accounts; recognised by their content; see docs/rest-server.md).
    #[arg(long, value_name = "DIR", group = "source")]
    data: Option<PathBuf>,
    /// Serve the OpenAPI document's own examples instead of a data set.
    #[arg(long, group = "source")]
    mock: bool,
    /// The address to listen on; port 0 takes a free one (said on stderr).
    #[arg(long, value_name = "ADDR", default_value = "127.0.0.1:8080")]
    listen: SocketAddr,
    /// The URL clients reach the API at, the base of the `next` and `previous` links (default: the
    /// listening address).
    #[arg(long, value_name = "URL")]
    public_url: Option<String>,
    /// An API key that may read accounts (HTTP Basic user name); may be repeated. Prefer the
    /// environment variable or a file: a command line is visible to other users of the machine.
    #[arg(
        long,
        env = "ENERGY_API_KEY",
        hide_env_values = true,
        value_name = "KEY"
    )]
    api_key: Vec<String>,
    /// A token that may read accounts (the Authorization header's value); may be repeated.
    #[arg(
        long,
        env = "ENERGY_TOKEN",
        hide_env_values = true,
        value_name = "TOKEN"
    )]
    token: Vec<String>,
    /// Read an API key from this file (its first line; refused when other users may read it).
    #[arg(long, value_name = "PATH")]
    api_key_file: Vec<PathBuf>,
    /// Read a token from this file (its first line; refused when other users may read it).
    #[arg(long, value_name = "PATH")]
    token_file: Vec<PathBuf>,
    /// Serve HTTPS with this certificate chain (PEM); with --tls-key.
    #[arg(long, value_name = "PATH", requires = "tls_key")]
    tls_cert: Option<PathBuf>,
    /// The certificate's private key (PEM); with --tls-cert.
    #[arg(long, value_name = "PATH", requires = "tls_cert")]
    tls_key: Option<PathBuf>,
    /// A proxy whose X-Forwarded-Proto, -Host and -Prefix are believed (an address or CIDR block);
    /// may be repeated. With one, plain HTTP is served on any address (the proxy terminates TLS).
    #[arg(long, value_name = "CIDR")]
    trusted_proxy: Vec<String>,
    /// Requests answered at once; more are refused with 503 and Retry-After (1 to 100000).
    #[arg(long, value_name = "N", default_value_t = 512,
          value_parser = clap::value_parser!(u32).range(1..=100_000))]
    max_in_flight: u32,
    /// Seconds a request may take (1 to 3600); past it, 503.
    #[arg(long, value_name = "SECONDS", default_value_t = 30,
          value_parser = clap::value_parser!(u64).range(1..=3600))]
    request_timeout: u64,
    /// Connections open at once; more are closed at once (1 to 1000000).
    #[arg(long, value_name = "N", default_value_t = 10_000,
          value_parser = clap::value_parser!(u32).range(1..=1_000_000))]
    max_connections: u32,
    /// Honour `Prefer: code=…` and `Prefer: example=…` as Prism does (on by default; `false` to
    /// serve as the API would).
    #[arg(long, value_name = "BOOL", default_value_t = true, action = clap::ArgAction::Set)]
    prefer: bool,
}

/// Runs `energy serve`.
pub fn run(args: ServeArgs) -> ExitCode {
    match serve(args) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("error: {e}");
            Exit::Usage.into()
        }
    }
}

fn serve(args: ServeArgs) -> Result<(), String> {
    if !energy_server::is_loopback(args.listen)
        && args.tls_cert.is_none()
        && args.trusted_proxy.is_empty()
    {
        return Err(format!(
            "{} is not a loopback address: the API is served over HTTPS only (--tls-cert and \
             --tls-key), or behind a proxy that terminates TLS (--trusted-proxy)",
            args.listen
        ));
    }
    let tls = match (&args.tls_cert, &args.tls_key) {
        (Some(cert), Some(key)) => Some(energy_server::tls_config(cert, key)?),
        _ => None,
    };
    let data = match &args.data {
        Some(dir) => DataSet::load(dir)?,
        None => DataSet::mock()?,
    };
    let mut keys = Keys::new();
    for key in &args.api_key {
        keys = keys.api_key(key);
    }
    for token in &args.token {
        keys = keys.token(token);
    }
    for path in &args.api_key_file {
        keys = keys.api_key(secret_file::read(path)?);
    }
    for path in &args.token_file {
        keys = keys.token(secret_file::read(path)?);
    }
    let trusted = TrustedProxies::parse(&args.trusted_proxy)?;
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .map_err(|e| format!("cannot start the runtime: {e}"))?;
    runtime.block_on(async move {
        let listener = tokio::net::TcpListener::bind(args.listen)
            .await
            .map_err(|e| format!("cannot listen on {}: {e}", args.listen))?;
        let bound = listener
            .local_addr()
            .map_err(|e| format!("cannot read the listening address: {e}"))?;
        let scheme = if tls.is_some() { "https" } else { "http" };
        let public = match &args.public_url {
            Some(url) => PublicUrl::parse(url)?,
            None => PublicUrl::parse(&format!("{scheme}://{bound}"))?,
        };
        let mut config = RouterConfig::new(public.clone());
        config.trusted_proxies = trusted;
        config.max_in_flight = args.max_in_flight as usize;
        config.request_timeout = Duration::from_secs(args.request_timeout);
        config.honour_prefer = args.prefer;
        let source = match &args.data {
            Some(dir) => dir.display().to_string(),
            None => "the OpenAPI document's examples".to_owned(),
        };
        eprintln!("energy serve: {} from {source}", data.summary());
        for skipped in data.skipped() {
            eprintln!("energy serve: skipped {skipped}");
        }
        if keys.is_empty() {
            eprintln!(
                "energy serve: no API key or token given: accounts answer 401 to every request"
            );
        }
        let router = Server::new(data, keys, config).router();
        eprintln!(
            "energy serve: listening on {scheme}://{bound} (links to {})",
            public.as_str()
        );
        let limits = Limits {
            max_connections: args.max_connections as usize,
            ..Limits::default()
        };
        energy_server::serve(listener, router, tls, limits, crate::stop::interrupted()).await;
        eprintln!("energy serve: stopped");
        Ok(())
    })
}
