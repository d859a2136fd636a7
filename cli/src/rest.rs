//! `energy products|rates|account`: the REST API from the command line, on the blocking client.

mod account;
mod chart;
pub(crate) mod secret_file;
mod table;

use std::collections::BTreeMap;
use std::io::{self, IsTerminal as _, Write as _};
use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Duration;

use clap::{Args, Subcommand, ValueEnum};
use energy_api::rest::{
    DualRegisterTariff, GetAccount, GetProduct, ListProducts, ListStandardUnitRates, Page, Product,
    ProductDetail, SingleRegisterTariff, StandardUnitRate,
};
use energy_runtime::rest::{
    BaseUrl, Client, ClientConfig, Credentials, DateTimeParam, Error, datetime,
};
use energy_runtime::text::{Shown, for_terminal};
use jiff::Timestamp;
use jiff::tz::TimeZone;
use serde::Serialize;
use serde::de::DeserializeOwned;
use table::{Align, Table, TableFull};

use crate::exit::Exit;

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
    /// Seconds to wait for each response (1 to 3600).
    #[arg(long, value_name = "SECONDS", default_value_t = 30,
          value_parser = clap::value_parser!(u64).range(1..=3600))]
    timeout: u64,
    /// Seconds the whole command may take, retries and every page included (1 to 86400).
    #[arg(long, value_name = "SECONDS", default_value_t = 600,
          value_parser = clap::value_parser!(u64).range(1..=86_400))]
    deadline: u64,
    /// The largest response body read, in MiB, counted decompressed (1 to 1024).
    #[arg(long, value_name = "MIB", default_value_t = 10,
          value_parser = clap::value_parser!(u64).range(1..=1024))]
    max_body_mib: u64,
    /// Print nothing on stderr but errors: no retry reports, progress or notes.
    #[arg(long, short)]
    quiet: bool,
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
    /// Records per page (the API's usual page size is 100; 1 to 100000).
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(i64).range(1..=100_000))]
    page_size: Option<i64>,
    /// Stop with an error after this many pages if more remain (1 to 1000000).
    #[arg(long, value_name = "N", default_value_t = 1000,
          value_parser = clap::value_parser!(u64).range(1..=1_000_000))]
    max_pages: u64,
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
    /// Without it, the product's single-register electricity tariff of --region (and --payment) is
    /// looked up first.
    tariff: Option<String>,
    /// The region of the tariff to look up (A to P, as the product lists them), when no tariff is given.
    #[arg(long, value_name = "REGION", conflicts_with = "tariff")]
    region: Option<String>,
    /// The payment method of the tariff to look up (such as direct_debit_monthly), when the product
    /// has several in the region.
    #[arg(long, value_name = "METHOD", conflicts_with = "tariff")]
    payment: Option<String>,
    /// Only rates from this date-time on.
    #[arg(long, value_name = "DATETIME", long_help = DATETIME_HELP)]
    from: Option<DateTimeParam>,
    /// Only rates before this date-time.
    #[arg(long, value_name = "DATETIME", long_help = DATETIME_HELP)]
    to: Option<DateTimeParam>,
    /// Stop with an error after this many pages if more remain (1 to 1000000).
    #[arg(long, value_name = "N", default_value_t = 1000,
          value_parser = clap::value_parser!(u64).range(1..=1_000_000))]
    max_pages: u64,
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
    /// Read the API key from this file (its first line). Like ssh with a private key, a file that
    /// other users may read or write (any group or other permission bit) is refused: chmod 600 it.
    #[arg(
        long,
        env = "ENERGY_API_KEY_FILE",
        group = "credentials",
        value_name = "PATH"
    )]
    api_key_file: Option<PathBuf>,
    /// Read the token from this file (its first line); refused when other users may read or write it.
    #[arg(
        long,
        env = "ENERGY_TOKEN_FILE",
        group = "credentials",
        value_name = "PATH"
    )]
    token_file: Option<PathBuf>,
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
    Usage(Box<Error>),
    /// A credentials file that cannot be used: exit 2.
    SecretFile(String),
    /// The API or the HTTP exchange failed: exit 1.
    Api(Box<Error>),
    /// A table or chart would hold more than it may: exit 1.
    TableFull { records: usize },
    /// A response that decoded but cannot be shown (nested too deep): exit 1.
    Unshowable(String),
    /// Writing the output failed: exit 2, or 141 for a closed pipe.
    Output(io::Error),
    /// The product has no tariff matching the arguments (the message says which there are): exit 1.
    NoTariff(String),
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
            | Error::InvalidPathParameter { .. }
            | Error::InvalidDateTime { .. } => Self::Usage(Box::new(error)),
            other => Self::Api(Box::new(other)),
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
        Ok(()) => Exit::Success.into(),
        Err(Failure::Output(error)) => crate::exit::output_failed(&error),
        Err(Failure::Api(error)) => {
            eprintln!("error: {error}");
            if let Some(help) = help_for(&error) {
                eprintln!("help: {help}");
            }
            Exit::Failure.into()
        }
        Err(Failure::TableFull { records }) => {
            eprintln!(
                "error: stopped after {records} records: a table or chart holds at most {} MiB of \
                 text, and more remain",
                TABLE_BUDGET_BYTES / (1024 * 1024)
            );
            eprintln!(
                "help: --format json prints each record as its page arrives and holds none; or \
                 narrow the list"
            );
            Exit::Failure.into()
        }
        Err(Failure::Unshowable(message) | Failure::NoTariff(message)) => {
            eprintln!("error: {message}");
            Exit::Failure.into()
        }
        Err(Failure::Usage(error)) => {
            eprintln!("error: {error}");
            Exit::Usage.into()
        }
        Err(Failure::SecretFile(message)) => {
            eprintln!("error: {message}");
            Exit::Usage.into()
        }
    }
}

/// The option that raises a bound the error ran into.
fn help_for(error: &Error) -> Option<&'static str> {
    match error {
        Error::BodyTooLarge { .. } => Some("--max-body-mib raises the limit"),
        Error::PageLimit { .. } => Some("--max-pages raises the limit"),
        Error::DeadlineExceeded { .. } => Some("--deadline gives the command more time"),
        Error::Timeout { .. } => Some("--timeout gives each response more time"),
        _ => None,
    }
}

/// How much text a table or chart holds at most: 64 MiB (a table of 100,000 products is ~20 MiB).
const TABLE_BUDGET_BYTES: usize = 64 * 1024 * 1024;

fn client(
    connection: &Connection,
    credentials: Option<Credentials>,
    max_pages: Option<u64>,
) -> Result<Client, Failure> {
    let mut config = ClientConfig::new(BaseUrl::parse(&connection.base_url)?)
        .with_timeout(Duration::from_secs(connection.timeout))
        .with_deadline(Duration::from_secs(connection.deadline))
        .with_max_body_bytes(connection.max_body_mib * 1024 * 1024);
    if !connection.quiet {
        // Retries are announced: a server that keeps answering 429 would otherwise keep the
        // command silent for minutes. A progress line, if one is drawn, is erased first.
        let terminal = io::stderr().is_terminal();
        config = config.with_retry_notice(move |notice| {
            let erase = if terminal { "\r\x1b[2K" } else { "" };
            eprintln!("{erase}retrying: {notice}");
        });
    }
    if let Some(credentials) = credentials {
        config = config.with_credentials(credentials);
    }
    if let Some(max_pages) = max_pages {
        config = config.with_max_pages(usize::try_from(max_pages).unwrap_or(usize::MAX));
    }
    Ok(Client::new(config))
}

fn list_products(args: ListArgs) -> Result<(), Failure> {
    let client = client(&args.connection, None, Some(args.max_pages))?;
    // The request type is `#[non_exhaustive]` (a new optional parameter is a minor release of
    // `energy-api`): filled field by field, each flag as given (or left out).
    let mut endpoint = ListProducts::default();
    endpoint.brand = args.brand;
    endpoint.is_green = args.is_green;
    endpoint.is_prepay = args.is_prepay;
    endpoint.page_size = args.page_size;
    let pages = client.pages(&endpoint);
    if args.format == Format::Json {
        let mut out = io::stdout().lock();
        return fetch_all(pages, args.connection.quiet, |product| {
            Ok(print_json(&mut out, &product)?)
        });
    }
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
    ])
    .with_budget(TABLE_BUDGET_BYTES);
    fetch_all(pages, args.connection.quiet, |product: Product| {
        Ok(table.row(product_row(&product, &zone))?)
    })?;
    let mut out = io::stdout().lock();
    table.write(&mut out)?;
    writeln!(out, "{} products", table.len())?;
    Ok(())
}

impl From<TableFull> for Failure {
    fn from(full: TableFull) -> Self {
        Self::TableFull { records: full.rows }
    }
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
        Format::Table => product_detail(&mut out, &product, &datetime::london()?)?,
    }
    Ok(())
}

/// The product's own fields, then a table of its tariffs (what `energy rates` needs). The body is
/// at most `--max-body-mib`, so these tables are bounded by it (no budget of their own).
fn product_detail(
    out: &mut impl io::Write,
    product: &ProductDetail,
    zone: &TimeZone,
) -> io::Result<()> {
    let mut fields = Table::new(&[("FIELD", Align::Left), ("VALUE", Align::Left)]);
    let mut field = |name: &str, value: String| fields.push(vec![name.to_owned(), value]);
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
    fields.write(out)?;

    let mut tariffs_table = Table::new(&[
        ("TARIFF", Align::Left),
        ("KIND", Align::Left),
        ("REGION", Align::Left),
        ("PAYMENT", Align::Left),
        ("UNIT RATE p/kWh inc VAT", Align::Right),
        ("STANDING CHARGE p/day inc VAT", Align::Right),
    ]);
    for (kind, tariffs) in tariff_rows(product) {
        for row in tariffs {
            tariffs_table.push(vec![
                row.code.to_owned(),
                kind.to_owned(),
                row.region.trim_start_matches('_').to_owned(),
                row.payment.to_owned(),
                row.unit_rate,
                row.standing_charge.to_string(),
            ]);
        }
    }
    if tariffs_table.len() > 0 {
        out.write_all(b"\n")?;
        let count = tariffs_table.len();
        tariffs_table.write(out)?;
        writeln!(out, "{count} tariffs")?;
    }
    Ok(())
}

/// A tariff of a product as the table shows it.
struct TariffRow<'p> {
    code: &'p str,
    /// The keys it is listed under.
    region: &'p str,
    payment: &'p str,
    /// Including VAT: the one rate, or the day and the night rate.
    unit_rate: String,
    standing_charge: f64,
}

/// Every tariff of a product by kind, in the order of the response's keys (sorted).
fn tariff_rows(product: &ProductDetail) -> [(&'static str, Vec<TariffRow<'_>>); 3] {
    fn rows<'p, T>(
        tariffs: &'p BTreeMap<String, BTreeMap<String, T>>,
        row: impl Fn(&'p str, &'p str, &'p T) -> TariffRow<'p>,
    ) -> Vec<TariffRow<'p>> {
        tariffs
            .iter()
            .flat_map(|(region, by_payment)| {
                by_payment
                    .iter()
                    .map(|(payment, tariff)| row(region, payment, tariff))
                    .collect::<Vec<_>>()
            })
            .collect()
    }
    fn single<'p>(region: &'p str, payment: &'p str, t: &'p SingleRegisterTariff) -> TariffRow<'p> {
        TariffRow {
            code: &t.code,
            region,
            payment,
            unit_rate: t.standard_unit_rate_inc_vat.to_string(),
            standing_charge: t.standing_charge_inc_vat,
        }
    }
    [
        (
            "single register electricity",
            rows(&product.single_register_electricity_tariffs, single),
        ),
        (
            "dual register electricity",
            rows(
                &product.dual_register_electricity_tariffs,
                |region, payment, t: &DualRegisterTariff| TariffRow {
                    code: &t.code,
                    region,
                    payment,
                    unit_rate: format!(
                        "day {} / night {}",
                        t.day_unit_rate_inc_vat, t.night_unit_rate_inc_vat
                    ),
                    standing_charge: t.standing_charge_inc_vat,
                },
            ),
        ),
        (
            "single register gas",
            rows(&product.single_register_gas_tariffs, single),
        ),
    ]
}

fn rates(args: RatesArgs) -> Result<(), Failure> {
    let client = client(&args.connection, None, Some(args.max_pages))?;
    let tariff = match &args.tariff {
        Some(tariff) => tariff.clone(),
        None => {
            let product = client.send(&GetProduct::new(args.product.clone()))?;
            let tariff = pick_tariff(&product, args.region.as_deref(), args.payment.as_deref())
                .map_err(Failure::NoTariff)?;
            if !args.connection.quiet {
                eprintln!("tariff: {}", Shown::new(&tariff, 200));
            }
            tariff
        }
    };
    let mut endpoint = ListStandardUnitRates::new(args.product, tariff.clone());
    for (param, slot) in [
        (&args.from, &mut endpoint.period_from),
        (&args.to, &mut endpoint.period_to),
    ] {
        if let Some(param) = param {
            if let Some(note) = param.clock_change_note()
                && !args.connection.quiet
            {
                eprintln!("note: {note}");
            }
            *slot = Some(param.to_timestamp()?);
        }
    }
    let pages = client.pages(&endpoint);
    let quiet = args.connection.quiet;
    let zone = datetime::london()?;
    match args.format {
        RatesFormat::Json => {
            let mut out = io::stdout().lock();
            fetch_all(pages, quiet, |rate| Ok(print_json(&mut out, &rate)?))?;
        }
        RatesFormat::Table => {
            let mut table = Table::new(&[
                ("VALID FROM (Europe/London)", Align::Left),
                ("VALID TO", Align::Left),
                ("EXC VAT p/kWh", Align::Right),
                ("INC VAT p/kWh", Align::Right),
                ("PAYMENT METHOD", Align::Left),
            ])
            .with_budget(TABLE_BUDGET_BYTES);
            fetch_all(pages, quiet, |rate: StandardUnitRate| {
                Ok(table.row(vec![
                    london_time(rate.valid_from, &zone),
                    rate.valid_to
                        .map_or_else(|| "-".to_owned(), |to| london_time(to, &zone)),
                    rate.value_exc_vat.to_string(),
                    rate.value_inc_vat.to_string(),
                    rate.payment_method.unwrap_or_else(|| "-".to_owned()),
                ])?)
            })?;
            let mut out = io::stdout().lock();
            table.write(&mut out)?;
            writeln!(out, "{} rates", table.len())?;
        }
        RatesFormat::Chart => {
            // A chart keeps two numbers per rate, not the rates.
            let mut points = Vec::new();
            fetch_all(pages, quiet, |rate: StandardUnitRate| {
                if (points.len() + 1) * chart::BYTES_PER_POINT > TABLE_BUDGET_BYTES {
                    return Err(Failure::TableFull {
                        records: points.len(),
                    });
                }
                points.push((rate.valid_from, rate.value_inc_vat));
                Ok(())
            })?;
            let mut out = io::stdout().lock();
            if points.is_empty() {
                writeln!(out, "no rates in this period")?;
            } else {
                writeln!(
                    out,
                    "Unit rates of {}, times in Europe/London",
                    Shown::new(&tariff, 200)
                )?;
                out.write_all(chart::render(&mut points, &zone, terminal_width()).as_bytes())?;
            }
        }
    }
    Ok(())
}

/// The code of the product's single-register electricity tariff (the kind that has standard unit
/// rates) in `region`, paid by `payment`; either may be left out when the product leaves no choice.
/// The error says what the choices are.
fn pick_tariff(
    product: &ProductDetail,
    region: Option<&str>,
    payment: Option<&str>,
) -> Result<String, String> {
    let tariffs = &product.single_register_electricity_tariffs;
    let shown = |keys: Vec<&String>| {
        keys.iter()
            .map(|k| for_terminal(k.trim_start_matches('_'), 100).into_owned())
            .collect::<Vec<_>>()
            .join(", ")
    };
    let code = for_terminal(&product.code, 200);
    if tariffs.is_empty() {
        return Err(format!(
            "product {code} has no single-register electricity tariff"
        ));
    }
    let by_payment = match region {
        Some(region) => {
            let key = format!("_{}", region.trim_start_matches('_'));
            tariffs.get(&key).ok_or_else(|| {
                format!(
                    "product {code} has no tariff in region {}; its regions: {}",
                    for_terminal(region, 100),
                    shown(tariffs.keys().collect())
                )
            })?
        }
        None => only(tariffs).ok_or_else(|| {
            format!(
                "product {code} has tariffs in {} regions; choose one with --region ({})",
                tariffs.len(),
                shown(tariffs.keys().collect())
            )
        })?,
    };
    let tariff = match payment {
        Some(payment) => by_payment.get(payment).ok_or_else(|| {
            format!(
                "no tariff paid by {} there; payment methods: {}",
                for_terminal(payment, 100),
                shown(by_payment.keys().collect())
            )
        })?,
        None => only(by_payment).ok_or_else(|| {
            format!(
                "product {code} has {} payment methods there; choose one with --payment ({})",
                by_payment.len(),
                shown(by_payment.keys().collect())
            )
        })?,
    };
    Ok(tariff.code.clone())
}

/// The one value of a map that has exactly one.
fn only<V>(map: &BTreeMap<String, V>) -> Option<&V> {
    match map.len() {
        1 => map.values().next(),
        _ => None,
    }
}

fn account(args: AccountArgs) -> Result<(), Failure> {
    let credentials = match (args.api_key, args.token, args.api_key_file, args.token_file) {
        (Some(key), ..) => Credentials::api_key(key)?,
        (None, Some(token), ..) => Credentials::token(token)?,
        (None, None, Some(path), _) => {
            Credentials::api_key(secret_file::read(&path).map_err(Failure::SecretFile)?)?
        }
        (None, None, None, Some(path)) => {
            Credentials::token(secret_file::read(&path).map_err(Failure::SecretFile)?)?
        }
        (None, None, None, None) => {
            return Err(Error::MissingCredentials {
                operation: "get_account",
            }
            .into());
        }
    };
    let client = client(&args.connection, Some(credentials), None)?;
    // Read as text and walked, never as a tree of values (see `account`).
    let account: account::RawAccount = client.send_as(&GetAccount::new(args.number))?;
    let mut out = io::stdout().lock();
    let shown = match args.format {
        Format::Json => account::write_json(&mut out, &account),
        Format::Table => account::write_table(&mut out, &account),
    };
    match shown {
        Ok(()) => Ok(()),
        Err(account::ShowError::Output(error)) => Err(Failure::Output(error)),
        Err(error) => Err(Failure::Unshowable(error.to_string())),
    }
}

/// Fetches every page, handing each record to `each` as its page arrives (nothing is kept here).
/// Shows progress on stderr while many pages come, if it is a terminal and not `quiet`.
fn fetch_all<T: DeserializeOwned>(
    pages: impl Iterator<Item = Result<Page<T>, Error>>,
    quiet: bool,
    mut each: impl FnMut(T) -> Result<(), Failure>,
) -> Result<(), Failure> {
    let mut progress = Progress::new(quiet);
    let mut received = 0;
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
        for record in page.results {
            if let Err(failure) = each(record) {
                progress.clear();
                return Err(failure);
            }
        }
    }
    progress.clear();
    Ok(())
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
    fn new(quiet: bool) -> Self {
        Self {
            enabled: !quiet && io::stderr().is_terminal(),
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

/// The terminal's width from `COLUMNS` (40 to 1000; wider counts as 1000), or 80.
fn terminal_width() -> usize {
    std::env::var("COLUMNS")
        .ok()
        .and_then(|c| c.trim().parse::<u128>().ok())
        .filter(|&w| w >= 40)
        .map_or(80, |w| usize::try_from(w.min(1000)).unwrap_or(1000))
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
