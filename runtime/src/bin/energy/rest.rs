//! `energy products|rates|account`: the REST API from the command line, on the blocking client.

mod chart;
mod table;

use std::io::{self, IsTerminal as _, Write as _};
use std::process::ExitCode;
use std::time::Duration;

use clap::{Args, Subcommand, ValueEnum};
use energy_api::rest::{
    Account, GetAccount, GetProduct, ListProducts, ListStandardUnitRates, Page, Product,
    ProductDetail,
};
use energy_runtime::rest::{
    BaseUrl, Client, ClientConfig, Credentials, DateTimeParam, Error, datetime,
};
use jiff::Timestamp;
use jiff::tz::TimeZone;
use serde::Serialize;
use serde::de::DeserializeOwned;
use serde_json::Value;
use table::{Align, Table};

const BASE_URL_HELP: &str = "The API's base URL, the part before `/v1/` (for example \
https://api.example.com). The API has no default host: set it with --base-url or the ENERGY_BASE_URL \
environment variable. Only https:// is accepted, except http:// on a loopback host (127.0.0.1, ::1, \
localhost) for local testing.";

const DATETIME_HELP: &str = "An ISO 8601 date-time. With an offset or Z (2024-03-31T01:30Z) it is an \
instant; without one (2024-03-31T01:30, or a date alone: 2024-03-31 is its midnight) it is London time, \
resolved before sending: a time skipped when the clocks go forward moves forward by an hour, a time \
repeated when they go back means the first (BST) one; add +00:00 for the second.";

/// The REST API commands.
#[derive(Subcommand)]
pub enum Command {
    /// List products, or show one product and its tariffs.
    #[command(subcommand)]
    Products(ProductsCommand),
    /// Show the standard unit rates of an electricity tariff, latest first.
    Rates(RatesArgs),
    /// Show an account (needs an API key or a token).
    Account(AccountArgs),
}

/// `energy products ...`.
#[derive(Subcommand)]
pub enum ProductsCommand {
    /// List products; the filters combine.
    List(ListArgs),
    /// Show one product, with its tariffs by region.
    Get(GetArgs),
}

#[derive(Args)]
struct Connection {
    #[arg(long, env = "ENERGY_BASE_URL", value_name = "URL", help = BASE_URL_HELP)]
    base_url: String,
    /// Seconds to wait for each response.
    #[arg(long, value_name = "SECONDS", default_value_t = 30,
          value_parser = clap::value_parser!(u64).range(1..))]
    timeout: u64,
}

#[derive(Args)]
pub struct ListArgs {
    #[command(flatten)]
    connection: Connection,
    /// Only products of this brand (a brand code, such as OCTOPUS_ENERGY).
    #[arg(long)]
    brand: Option<String>,
    /// Only green (true) or only non-green (false) products.
    #[arg(long, value_name = "true|false")]
    is_green: Option<bool>,
    /// Only prepaid (true) or only non-prepaid (false) products.
    #[arg(long, value_name = "true|false")]
    is_prepay: Option<bool>,
    /// Records per page (the API's usual page size is 100).
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(i64).range(1..))]
    page_size: Option<i64>,
    /// Stop with an error after this many pages if more remain.
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u64).range(1..))]
    max_pages: Option<u64>,
    /// Output: a table, or one JSON object per product per line.
    #[arg(long, value_enum, default_value_t = Format::Table)]
    format: Format,
}

#[derive(Args)]
pub struct GetArgs {
    #[command(flatten)]
    connection: Connection,
    /// The product code (such as AGILE-24-04-03).
    code: String,
    /// Output: a table, or the product as one JSON object.
    #[arg(long, value_enum, default_value_t = Format::Table)]
    format: Format,
}

#[derive(Args)]
pub struct RatesArgs {
    #[command(flatten)]
    connection: Connection,
    /// The product code (such as AGILE-24-04-03).
    product: String,
    /// The electricity tariff code (such as E-1R-AGILE-24-04-03-C; `energy products get` lists them).
    tariff: String,
    /// Only rates from this date-time on.
    #[arg(long, value_name = "DATETIME", long_help = DATETIME_HELP)]
    from: Option<DateTimeParam>,
    /// Only rates before this date-time.
    #[arg(long, value_name = "DATETIME", long_help = DATETIME_HELP)]
    to: Option<DateTimeParam>,
    /// Stop with an error after this many pages if more remain.
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u64).range(1..))]
    max_pages: Option<u64>,
    /// Output: a table, one JSON object per rate per line, or a bar chart of the prices over time.
    #[arg(long, value_enum, default_value_t = RatesFormat::Table)]
    format: RatesFormat,
}

#[derive(Args)]
#[command(group = clap::ArgGroup::new("credentials").required(true))]
pub struct AccountArgs {
    #[command(flatten)]
    connection: Connection,
    /// The account number (such as A-1234ABCD).
    number: String,
    /// The API key (sent as HTTP Basic user name). Prefer the environment variable: a command line
    /// is visible to other users of the machine.
    #[arg(
        long,
        env = "ENERGY_API_KEY",
        hide_env_values = true,
        group = "credentials",
        value_name = "KEY"
    )]
    api_key: Option<String>,
    /// A token, sent as given in the Authorization header. Prefer the environment variable.
    #[arg(
        long,
        env = "ENERGY_TOKEN",
        hide_env_values = true,
        group = "credentials",
        value_name = "TOKEN"
    )]
    token: Option<String>,
    /// Output: a table of every field, or the account as one JSON object.
    #[arg(long, value_enum, default_value_t = Format::Table)]
    format: Format,
}

#[derive(Clone, Copy, PartialEq, Eq, ValueEnum)]
enum Format {
    Table,
    Json,
}

#[derive(Clone, Copy, PartialEq, Eq, ValueEnum)]
enum RatesFormat {
    Table,
    Json,
    Chart,
}

/// Why a command failed, and so its exit code.
enum Failure {
    /// A bad argument that clap could not check (an insecure base URL, say): exit 2.
    Usage(Error),
    /// The API or the HTTP exchange failed: exit 1.
    Api(Error),
    /// Writing the output failed: exit 1.
    Output(io::Error),
}

impl From<io::Error> for Failure {
    fn from(error: io::Error) -> Self {
        Self::Output(error)
    }
}

impl From<Error> for Failure {
    fn from(error: Error) -> Self {
        match error {
            Error::InvalidBaseUrl { .. }
            | Error::InvalidCredentials(_)
            | Error::MissingCredentials { .. }
            | Error::InvalidDateTime { .. } => Self::Usage(error),
            other => Self::Api(other),
        }
    }
}

/// Runs a REST command and says how it ended.
pub fn run(command: Command) -> ExitCode {
    let result = match command {
        Command::Products(ProductsCommand::List(args)) => list_products(args),
        Command::Products(ProductsCommand::Get(args)) => get_product(args),
        Command::Rates(args) => rates(args),
        Command::Account(args) => account(args),
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        // The reader went away (`energy ... | head`): not a failure of this command.
        Err(Failure::Output(error)) if error.kind() == io::ErrorKind::BrokenPipe => {
            ExitCode::SUCCESS
        }
        Err(Failure::Output(error)) => {
            eprintln!("error: cannot write the output: {error}");
            ExitCode::FAILURE
        }
        Err(Failure::Api(error)) => {
            eprintln!("error: {error}");
            ExitCode::FAILURE
        }
        Err(Failure::Usage(error)) => {
            eprintln!("error: {error}");
            ExitCode::from(2)
        }
    }
}

fn client(
    connection: &Connection,
    credentials: Option<Credentials>,
    max_pages: Option<u64>,
) -> Result<Client, Failure> {
    let mut config = ClientConfig::new(BaseUrl::parse(&connection.base_url)?)
        .with_timeout(Duration::from_secs(connection.timeout));
    if let Some(credentials) = credentials {
        config = config.with_credentials(credentials);
    }
    if let Some(max_pages) = max_pages {
        config = config.with_max_pages(usize::try_from(max_pages).unwrap_or(usize::MAX));
    }
    Ok(Client::new(config))
}

fn list_products(args: ListArgs) -> Result<(), Failure> {
    let client = client(&args.connection, None, args.max_pages)?;
    let endpoint = ListProducts {
        brand: args.brand,
        is_green: args.is_green,
        is_prepay: args.is_prepay,
        page_size: args.page_size,
    };
    let products = fetch_all(client.pages(&endpoint), args.format == Format::Json)?;
    if args.format == Format::Table {
        let zone = datetime::london()?;
        let mut table = Table::new(&[
            ("CODE", Align::Left),
            ("NAME", Align::Left),
            ("BRAND", Align::Left),
            ("DIRECTION", Align::Left),
            ("GREEN", Align::Left),
            ("PREPAY", Align::Left),
            ("VARIABLE", Align::Left),
            ("TERM", Align::Right),
            ("AVAILABLE FROM", Align::Left),
            ("AVAILABLE TO", Align::Left),
        ]);
        for product in &products {
            table.row(product_row(product, &zone));
        }
        let mut out = io::stdout().lock();
        out.write_all(table.render().as_bytes())?;
        writeln!(out, "{} products", products.len())?;
    }
    Ok(())
}

fn product_row(product: &Product, zone: &TimeZone) -> Vec<String> {
    vec![
        product.code.clone(),
        product.display_name.clone(),
        product.brand.clone(),
        product.direction.clone(),
        yes_no(product.is_green),
        yes_no(product.is_prepay),
        yes_no(product.is_variable),
        product
            .term
            .map_or_else(|| "-".to_owned(), |months| format!("{months} months")),
        london_date(product.available_from, zone),
        product
            .available_to
            .map_or_else(|| "-".to_owned(), |to| london_date(to, zone)),
    ]
}

fn get_product(args: GetArgs) -> Result<(), Failure> {
    let client = client(&args.connection, None, None)?;
    let product = client.send(&GetProduct::new(args.code))?;
    let mut out = io::stdout().lock();
    match args.format {
        Format::Json => print_json(&mut out, &product)?,
        Format::Table => {
            out.write_all(product_detail(&product, &datetime::london()?).as_bytes())?
        }
    }
    Ok(())
}

/// The product's own fields, then a table of its tariffs (what `energy rates` needs).
fn product_detail(product: &ProductDetail, zone: &TimeZone) -> String {
    let mut fields = Table::new(&[("FIELD", Align::Left), ("VALUE", Align::Left)]);
    let mut field = |name: &str, value: String| fields.row(vec![name.to_owned(), value]);
    field("code", product.code.clone());
    field("display_name", product.display_name.clone());
    field("full_name", product.full_name.clone());
    field("brand", product.brand.clone());
    if let Some(direction) = &product.direction {
        field("direction", direction.clone());
    }
    field("is_green", yes_no(product.is_green));
    field("is_prepay", yes_no(product.is_prepay));
    field("is_variable", yes_no(product.is_variable));
    field("is_tracker", yes_no(product.is_tracker));
    field("is_business", yes_no(product.is_business));
    field("is_restricted", yes_no(product.is_restricted));
    field(
        "term",
        product
            .term
            .map_or_else(|| "-".to_owned(), |m| format!("{m} months")),
    );
    field("available_from", london_time(product.available_from, zone));
    field(
        "available_to",
        product
            .available_to
            .map_or_else(|| "-".to_owned(), |t| london_time(t, zone)),
    );
    field(
        "description",
        product
            .description
            .split_whitespace()
            .collect::<Vec<_>>()
            .join(" "),
    );
    let mut out = fields.render();

    let mut tariffs = Table::new(&[
        ("TARIFF", Align::Left),
        ("KIND", Align::Left),
        ("REGION", Align::Left),
        ("PAYMENT", Align::Left),
        ("UNIT RATE p/kWh inc VAT", Align::Right),
        ("STANDING CHARGE p/day inc VAT", Align::Right),
    ]);
    let mut count = 0;
    // The spec does not show these fields: read what the real API sends, skip what does not fit.
    for (key, regions) in &product.additional_fields {
        let (Some(kind), Some(regions)) = (key.strip_suffix("_tariffs"), regions.as_object())
        else {
            continue;
        };
        for (region, payments) in regions {
            for (payment, tariff) in payments.as_object().into_iter().flatten() {
                let Some(code) = tariff.get("code").and_then(Value::as_str) else {
                    continue;
                };
                count += 1;
                tariffs.row(vec![
                    code.to_owned(),
                    kind.replace('_', " "),
                    region.trim_start_matches('_').to_owned(),
                    payment.clone(),
                    unit_rates(tariff),
                    number(tariff.get("standing_charge_inc_vat")),
                ]);
            }
        }
    }
    if count > 0 {
        out.push('\n');
        out.push_str(&tariffs.render());
        out.push_str(&format!("{count} tariffs\n"));
    }
    out
}

/// The unit rate of a tariff; day and night rates for a dual-register one.
fn unit_rates(tariff: &Value) -> String {
    if tariff.get("standard_unit_rate_inc_vat").is_some() {
        return number(tariff.get("standard_unit_rate_inc_vat"));
    }
    format!(
        "day {} / night {}",
        number(tariff.get("day_unit_rate_inc_vat")),
        number(tariff.get("night_unit_rate_inc_vat"))
    )
}

fn number(value: Option<&Value>) -> String {
    match value {
        Some(Value::Number(n)) => n.to_string(),
        _ => "-".to_owned(),
    }
}

fn rates(args: RatesArgs) -> Result<(), Failure> {
    let client = client(&args.connection, None, args.max_pages)?;
    let mut endpoint = ListStandardUnitRates::new(args.product, args.tariff.clone());
    for (param, slot) in [
        (&args.from, &mut endpoint.period_from),
        (&args.to, &mut endpoint.period_to),
    ] {
        if let Some(param) = param {
            if let Some(note) = param.clock_change_note() {
                eprintln!("note: {note}");
            }
            *slot = Some(param.to_timestamp()?);
        }
    }
    let rates = fetch_all(client.pages(&endpoint), args.format == RatesFormat::Json)?;
    let zone = datetime::london()?;
    let mut out = io::stdout().lock();
    match args.format {
        RatesFormat::Json => {}
        RatesFormat::Table => {
            let mut table = Table::new(&[
                ("VALID FROM (Europe/London)", Align::Left),
                ("VALID TO", Align::Left),
                ("EXC VAT p/kWh", Align::Right),
                ("INC VAT p/kWh", Align::Right),
                ("PAYMENT METHOD", Align::Left),
            ]);
            for rate in &rates {
                table.row(vec![
                    london_time(rate.valid_from, &zone),
                    rate.valid_to
                        .map_or_else(|| "-".to_owned(), |to| london_time(to, &zone)),
                    rate.value_exc_vat.to_string(),
                    rate.value_inc_vat.to_string(),
                    rate.payment_method
                        .clone()
                        .unwrap_or_else(|| "-".to_owned()),
                ]);
            }
            out.write_all(table.render().as_bytes())?;
            writeln!(out, "{} rates", rates.len())?;
        }
        RatesFormat::Chart => {
            if rates.is_empty() {
                writeln!(out, "no rates in this period")?;
            } else {
                writeln!(out, "Unit rates of {}, times in Europe/London", args.tariff)?;
                out.write_all(chart::render(&rates, &zone, terminal_width()).as_bytes())?;
            }
        }
    }
    Ok(())
}

fn account(args: AccountArgs) -> Result<(), Failure> {
    let credentials = match (args.api_key, args.token) {
        (Some(key), _) => Credentials::api_key(key)?,
        (None, Some(token)) => Credentials::token(token)?,
        (None, None) => {
            return Err(Error::MissingCredentials {
                operation: "get_account",
            }
            .into());
        }
    };
    let client = client(&args.connection, Some(credentials), None)?;
    let account: Account = client.send(&GetAccount::new(args.number))?;
    let mut out = io::stdout().lock();
    match args.format {
        Format::Json => print_json(&mut out, &account)?,
        Format::Table => {
            // The spec does not show the account's fields: every field, by its JSON path.
            let mut table = Table::new(&[("FIELD", Align::Left), ("VALUE", Align::Left)]);
            let mut rows = Vec::new();
            flatten("", &Value::Object(account.0), &mut rows);
            for (path, value) in rows {
                table.row(vec![path, value]);
            }
            out.write_all(table.render().as_bytes())?;
        }
    }
    Ok(())
}

/// Every leaf of a JSON value, as (`a.b[0].c`, value text).
fn flatten(path: &str, value: &Value, rows: &mut Vec<(String, String)>) {
    match value {
        Value::Object(map) if !map.is_empty() => {
            for (key, child) in map {
                let child_path = if path.is_empty() {
                    key.clone()
                } else {
                    format!("{path}.{key}")
                };
                flatten(&child_path, child, rows);
            }
        }
        Value::Array(items) if !items.is_empty() => {
            for (index, child) in items.iter().enumerate() {
                flatten(&format!("{path}[{index}]"), child, rows);
            }
        }
        Value::String(text) => rows.push((path.to_owned(), text.clone())),
        other => rows.push((path.to_owned(), other.to_string())),
    }
}

/// Fetches every page; with `stream_json`, prints each record as a JSON line as soon as its page
/// arrives (and keeps none). Shows progress on stderr while many pages come, if it is a terminal.
fn fetch_all<T: DeserializeOwned + Serialize>(
    pages: impl Iterator<Item = Result<Page<T>, Error>>,
    stream_json: bool,
) -> Result<Vec<T>, Failure> {
    let mut progress = Progress::new();
    let mut records = Vec::new();
    let mut received = 0;
    let mut out = io::stdout().lock();
    for (index, page) in pages.enumerate() {
        let page = match page {
            Ok(page) => page,
            Err(error) => {
                progress.clear();
                return Err(error.into());
            }
        };
        received += page.results.len();
        progress.show(index + 1, received, page.count, page.next.is_some());
        if stream_json {
            for record in &page.results {
                print_json(&mut out, record)?;
            }
            out.flush()?;
        } else {
            records.extend(page.results);
        }
    }
    progress.clear();
    Ok(records)
}

fn print_json(out: &mut impl io::Write, value: &impl Serialize) -> io::Result<()> {
    serde_json::to_writer(&mut *out, value)?;
    out.write_all(b"\n")
}

/// A one-line progress indicator on stderr, shown only when stderr is a terminal and more than one
/// page is fetched.
struct Progress {
    enabled: bool,
    shown: bool,
}

impl Progress {
    fn new() -> Self {
        Self {
            enabled: io::stderr().is_terminal(),
            shown: false,
        }
    }

    fn show(&mut self, pages: usize, received: usize, count: i64, more: bool) {
        if self.enabled && (more || self.shown) {
            eprint!("\r\x1b[2Kfetching: page {pages}, {received} of {count} records");
            self.shown = true;
        }
    }

    fn clear(&mut self) {
        if self.shown {
            eprint!("\r\x1b[2K");
            self.shown = false;
        }
    }
}

/// The terminal's width from `COLUMNS`, or 80.
fn terminal_width() -> usize {
    std::env::var("COLUMNS")
        .ok()
        .and_then(|c| c.trim().parse().ok())
        .filter(|&w: &usize| w >= 40)
        .unwrap_or(80)
}

fn yes_no(value: bool) -> String {
    if value { "yes" } else { "no" }.to_owned()
}

fn london_time(instant: Timestamp, zone: &TimeZone) -> String {
    instant
        .to_zoned(zone.clone())
        .strftime("%Y-%m-%d %H:%M %Z")
        .to_string()
}

fn london_date(instant: Timestamp, zone: &TimeZone) -> String {
    instant
        .to_zoned(zone.clone())
        .strftime("%Y-%m-%d")
        .to_string()
}
