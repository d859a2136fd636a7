//! The API served from a data set: JSON files as the API returns them, read once, served by every rule
//! of the spec. This is what `energy serve` runs, and an implementation of [`Api`] to read as the
//! example.
//!
//! # Layout
//!
//! Every `*.json` file under the folder (sub-folders too, in path order) is read and recognised by its
//! content:
//!
//! | file holds | serves |
//! |---|---|
//! | a page whose results are products (`code`, `brand`) | `list_products`: every product of every such page, the first of a code kept |
//! | a product with its tariffs (`tariffs_active_at`) | `get_product` |
//! | a page of unit rates (`value_exc_vat`) | `list_standard_unit_rates` of the tariff its path names (`…/products/<P>/electricity-tariffs/<T>/standard-unit-rates/…`), else the tariff its `next` or `previous` link names |
//! | an account (`number`, `properties`) | `get_account` |
//!
//! A file that fits none, or unit rates whose tariff nothing names, or rates of another kind (a link to
//! `day-unit-rates`), is skipped, and said so ([`DataSet::skipped`]). `shared/real-responses` is such
//! a folder.
//!
//! # Rules
//!
//! - The product filters combine: `brand` (exactly), `is_green`, `is_prepay`.
//! - `period_from` and `period_to` keep the rates whose validity meets the period: `valid_from` before
//!   `period_to`, and `valid_to` after `period_from` (or open-ended); latest `valid_from` first.
//! - Pages of `page_size` (default 100), the page asked for; one past the last is 404.
//! - An account is shown to any holder of a configured key or token.

use crate::auth::KeyHolder;
use crate::page::paginate_cloned;
use energy_api::rest::server::ServerError;
use energy_api::rest::server::{
    Api, GetAccountResponse, GetProductResponse, ListProductsResponse,
    ListStandardUnitRatesResponse,
};
use energy_api::rest::{
    Account, GetAccount, GetProduct, ListProducts, ListStandardUnitRates, Page, Product,
    ProductDetail, StandardUnitRate,
};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

/// The largest data file read.
const MAX_FILE_BYTES: u64 = 512 * 1024 * 1024;

/// Products, product details, unit rates by tariff, and accounts, served as the API serves them.
#[derive(Debug, Clone, Default)]
pub struct DataSet {
    products: Vec<Product>,
    details: BTreeMap<String, ProductDetail>,
    rates: BTreeMap<(String, String), Vec<StandardUnitRate>>,
    accounts: BTreeMap<String, Account>,
    skipped: Vec<String>,
}

/// What a JSON file holds.
enum Content {
    Products(Page<Product>),
    Rates(Page<StandardUnitRate>),
    Detail(Box<ProductDetail>),
    Account(Box<Account>),
}

impl DataSet {
    /// An empty data set.
    pub fn new() -> Self {
        Self::default()
    }

    /// Reads every JSON file under `dir` (see the module's layout). A file that cannot be read or
    /// whose JSON does not match its resource is an error naming it; one that is not the API's is
    /// skipped.
    pub fn load(dir: &Path) -> Result<Self, String> {
        let mut files = Vec::new();
        collect(dir, &mut files)?;
        if files.is_empty() {
            return Err(format!("{} holds no .json file", dir.display()));
        }
        let mut set = Self::new();
        for file in files {
            let shown = file
                .strip_prefix(dir)
                .unwrap_or(&file)
                .display()
                .to_string();
            set.read_file(&file, &shown)?;
        }
        set.sort();
        Ok(set)
    }

    /// The documents' own examples (`EXAMPLES`, the OpenAPI document's `sample` of each response):
    /// what `energy serve --mock` serves.
    pub fn mock() -> Result<Self, String> {
        let mut set = Self::new();
        for example in energy_api::rest::server::EXAMPLES {
            let bytes = example.body.as_bytes();
            let content = classify(bytes)
                .map_err(|e| format!("the example of `{}`: {e}", example.operation))?;
            match content {
                Some(Content::Rates(page)) => {
                    // The example's tariff is the sample one of the document's parameters.
                    set.add_rates("AGILE-24-10-01", "E-1R-AGILE-24-10-01-C", page.results);
                }
                Some(other) => set.add(other, None, example.operation),
                None => set
                    .skipped
                    .push(format!("the example of `{}`", example.operation)),
            }
        }
        set.sort();
        Ok(set)
    }

    /// With a product in the list.
    pub fn with_product(mut self, product: Product) -> Self {
        self.products.push(product);
        self
    }

    /// With a product's detail.
    pub fn with_detail(mut self, detail: ProductDetail) -> Self {
        self.details.insert(detail.code.clone(), detail);
        self
    }

    /// With unit rates of a tariff.
    pub fn with_rates(mut self, product: &str, tariff: &str, rates: Vec<StandardUnitRate>) -> Self {
        self.add_rates(product, tariff, rates);
        self.sort();
        self
    }

    /// With an account.
    pub fn with_account(mut self, account: Account) -> Self {
        self.accounts.insert(account.number.clone(), account);
        self
    }

    /// What was read, in one line (`43 products, 4 product details, …`).
    pub fn summary(&self) -> String {
        let rates: usize = self.rates.values().map(Vec::len).sum();
        format!(
            "{} products, {} product details, {} rates of {} tariffs, {} accounts",
            self.products.len(),
            self.details.len(),
            rates,
            self.rates.len(),
            self.accounts.len()
        )
    }

    /// The files (or examples) skipped, each with why.
    pub fn skipped(&self) -> &[String] {
        &self.skipped
    }

    fn read_file(&mut self, file: &Path, shown: &str) -> Result<(), String> {
        let size = std::fs::metadata(file)
            .map_err(|e| format!("{shown}: {e}"))?
            .len();
        if size > MAX_FILE_BYTES {
            return Err(format!("{shown}: larger than {MAX_FILE_BYTES} bytes"));
        }
        let bytes = std::fs::read(file).map_err(|e| format!("{shown}: {e}"))?;
        match classify(&bytes).map_err(|e| format!("{shown}: {e}"))? {
            Some(content) => self.add(content, Some(file), shown),
            None => self.skipped.push(format!(
                "{shown}: not a products page, a product, a unit-rates page or an account"
            )),
        }
        Ok(())
    }

    fn add(&mut self, content: Content, file: Option<&Path>, shown: &str) {
        match content {
            Content::Products(page) => self.products.extend(page.results),
            Content::Detail(detail) => {
                self.details.entry(detail.code.clone()).or_insert(*detail);
            }
            Content::Account(account) => {
                self.accounts
                    .entry(account.number.clone())
                    .or_insert(*account);
            }
            Content::Rates(page) => {
                let named = file
                    .and_then(|f| tariff_in(&f.to_string_lossy()))
                    .or_else(|| page.next.as_deref().and_then(tariff_in))
                    .or_else(|| page.previous.as_deref().and_then(tariff_in));
                match named {
                    Some(Ok((product, tariff))) => self.add_rates(&product, &tariff, page.results),
                    Some(Err(kind)) => self.skipped.push(format!(
                        "{shown}: {kind} (no endpoint of the API serves them)"
                    )),
                    None => self.skipped.push(format!(
                        "{shown}: unit rates of an unnamed tariff (neither its path nor a `next` or \
                         `previous` link names one): put it under \
                         products/<product>/electricity-tariffs/<tariff>/standard-unit-rates/"
                    )),
                }
            }
        }
    }

    fn add_rates(&mut self, product: &str, tariff: &str, rates: Vec<StandardUnitRate>) {
        self.rates
            .entry((product.to_owned(), tariff.to_owned()))
            .or_default()
            .extend(rates);
    }

    /// Products in their order, the first of a code kept; rates latest first, each once.
    fn sort(&mut self) {
        let mut seen = std::collections::BTreeSet::new();
        self.products.retain(|p| seen.insert(p.code.clone()));
        for rates in self.rates.values_mut() {
            rates.sort_by_key(|r| std::cmp::Reverse(r.valid_from));
            rates.dedup_by(|a, b| a.valid_from == b.valid_from && a.valid_to == b.valid_to);
        }
    }
}

/// Every `.json` file under `dir`, in path order.
fn collect(dir: &Path, out: &mut Vec<PathBuf>) -> Result<(), String> {
    let entries =
        std::fs::read_dir(dir).map_err(|e| format!("cannot read {}: {e}", dir.display()))?;
    let mut paths: Vec<PathBuf> = entries.filter_map(|e| e.ok().map(|e| e.path())).collect();
    paths.sort();
    for path in paths {
        if path.is_dir() {
            collect(&path, out)?;
        } else if path.extension().is_some_and(|e| e == "json") {
            out.push(path);
        }
    }
    Ok(())
}

/// What the JSON `bytes` hold, by their members; `None` for none of the API's resources.
fn classify(bytes: &[u8]) -> Result<Option<Content>, String> {
    let value: serde_json::Value =
        serde_json::from_slice(bytes).map_err(|e| format!("not JSON: {e}"))?;
    let Some(object) = value.as_object() else {
        return Ok(None);
    };
    let typed = |e: serde_json::Error| format!("does not match its resource: {e}");
    if let Some(results) = object.get("results").and_then(|r| r.as_array()) {
        let first = results.first().and_then(|r| r.as_object());
        if first.is_some_and(|r| r.contains_key("value_exc_vat")) {
            return serde_json::from_slice(bytes)
                .map(|p| Some(Content::Rates(p)))
                .map_err(typed);
        }
        if first.is_some_and(|r| r.contains_key("code") && r.contains_key("brand")) {
            return serde_json::from_slice(bytes)
                .map(|p| Some(Content::Products(p)))
                .map_err(typed);
        }
        return Ok(None);
    }
    if object.contains_key("tariffs_active_at") {
        return serde_json::from_slice(bytes)
            .map(|d| Some(Content::Detail(Box::new(d))))
            .map_err(typed);
    }
    if object.contains_key("number") && object.contains_key("properties") {
        return serde_json::from_slice(bytes)
            .map(|a| Some(Content::Account(Box::new(a))))
            .map_err(typed);
    }
    Ok(None)
}

/// The product and tariff a path or URL names (`…/products/P/electricity-tariffs/T/standard-unit-rates…`),
/// or the kind of rates it names when they are not standard unit rates.
fn tariff_in(text: &str) -> Option<Result<(String, String), String>> {
    let segments: Vec<&str> = text.split(['/', '\\', '?']).collect();
    let at = segments
        .windows(5)
        .position(|w| w[0] == "products" && w[2] == "electricity-tariffs")?;
    let (product, tariff, kind) = (segments[at + 1], segments[at + 3], segments[at + 4]);
    if product.is_empty() || tariff.is_empty() {
        return None;
    }
    Some(if kind == "standard-unit-rates" {
        Ok((product.to_owned(), tariff.to_owned()))
    } else {
        Err(format!("rates of kind `{kind}`"))
    })
}

impl Api for DataSet {
    type Principal = KeyHolder;

    async fn list_products(
        &self,
        request: ListProducts,
    ) -> Result<ListProductsResponse, ServerError> {
        let matching = self
            .products
            .iter()
            .filter(|p| request.brand.as_ref().is_none_or(|b| &p.brand == b))
            .filter(|p| request.is_green.is_none_or(|g| p.is_green == g))
            .filter(|p| request.is_prepay.is_none_or(|g| p.is_prepay == g));
        let page = paginate_cloned(matching, request.page, request.page_size)?;
        Ok(ListProductsResponse::Ok(page))
    }

    async fn get_product(&self, request: GetProduct) -> Result<GetProductResponse, ServerError> {
        self.details
            .get(&request.product_code)
            .map(|d| GetProductResponse::Ok(d.clone()))
            .ok_or_else(|| {
                ServerError::not_found(format!("no product {}", shown(&request.product_code)))
            })
    }

    async fn list_standard_unit_rates(
        &self,
        request: ListStandardUnitRates,
    ) -> Result<ListStandardUnitRatesResponse, ServerError> {
        let key = (request.product_code.clone(), request.tariff_code.clone());
        let Some(rates) = self.rates.get(&key) else {
            return Err(ServerError::not_found(format!(
                "no tariff {} of product {}",
                shown(&request.tariff_code),
                shown(&request.product_code)
            )));
        };
        let matching = rates
            .iter()
            .filter(|r| request.period_to.is_none_or(|to| r.valid_from < to))
            .filter(|r| {
                request
                    .period_from
                    .is_none_or(|from| r.valid_to.is_none_or(|end| end > from))
            });
        let page = paginate_cloned(matching, request.page, None)?;
        Ok(ListStandardUnitRatesResponse::Ok(page))
    }

    async fn get_account(
        &self,
        request: GetAccount,
        _holder: &KeyHolder,
    ) -> Result<GetAccountResponse, ServerError> {
        self.accounts
            .get(&request.account_number)
            .map(|a| GetAccountResponse::Ok(a.clone()))
            .ok_or_else(|| {
                ServerError::not_found(format!("no account {}", shown(&request.account_number)))
            })
    }
}

/// A code from a request, as a message shows it: at most 100 characters, control characters escaped.
fn shown(text: &str) -> String {
    text.chars()
        .take(100)
        .flat_map(char::escape_debug)
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_tariff_is_named_by_a_path_or_a_link() {
        assert_eq!(
            tariff_in(
                "https://api.octopus.energy/v1/products/AGILE-24-10-01/electricity-tariffs/E-1R-AGILE-24-10-01-H/standard-unit-rates/?page=2"
            ),
            Some(Ok((
                "AGILE-24-10-01".to_owned(),
                "E-1R-AGILE-24-10-01-H".to_owned()
            )))
        );
        assert_eq!(
            tariff_in("data/products/P/electricity-tariffs/T/standard-unit-rates/1.json"),
            Some(Ok(("P".to_owned(), "T".to_owned())))
        );
        assert!(matches!(
            tariff_in("/v1/products/P/electricity-tariffs/T/day-unit-rates/"),
            Some(Err(_))
        ));
        assert_eq!(tariff_in("standard_unit_rates_1.json"), None);
    }

    #[test]
    fn the_examples_make_a_data_set() {
        let set = DataSet::mock().expect("the examples load");
        assert!(set.skipped().is_empty(), "{:?}", set.skipped());
        assert!(!set.products.is_empty(), "{}", set.summary());
        assert_eq!(set.details.len(), 1);
        assert_eq!(set.accounts.len(), 1);
        assert_eq!(set.rates.len(), 1);
    }
}
