//! Slicing a list into the page a request asks for.

use crate::router::PAGE_SIZE;
use energy_api::rest::Page;
use energy_api::rest::server::ServerError;

/// Page `page` (from 1; default 1) of `size` records (default [`PAGE_SIZE`]) of `records`, with the
/// count of the whole list; the router writes its `next` and `previous` links. A page past the last
/// (but the first of an empty list) is 404, as the API's pages are.
pub fn paginate<T>(
    records: Vec<T>,
    page: Option<i64>,
    size: Option<i64>,
) -> Result<Page<T>, ServerError> {
    let (page, size) = (page.unwrap_or(1).max(1), size.unwrap_or(PAGE_SIZE).max(1));
    let count = i64::try_from(records.len()).unwrap_or(i64::MAX);
    let start = (page - 1).saturating_mul(size);
    if start >= count && page > 1 {
        let pages = (count + size - 1) / size;
        return Err(ServerError::not_found(format!(
            "page {page} does not exist: the list has {count} records, {pages} page(s) of {size}"
        )));
    }
    let start = usize::try_from(start).unwrap_or(usize::MAX);
    let size = usize::try_from(size).unwrap_or(usize::MAX);
    let results: Vec<T> = records.into_iter().skip(start).take(size).collect();
    Ok(Page::new(count, None::<String>, None::<String>, results))
}

/// Page `page` of `size` records (defaults as [`paginate`]) of the records `matching` yields, cloning
/// only those of the page: the count is of every record yielded.
pub fn paginate_cloned<'a, T: Clone + 'a>(
    matching: impl Iterator<Item = &'a T>,
    page: Option<i64>,
    size: Option<i64>,
) -> Result<Page<T>, ServerError> {
    let (page, size) = (page.unwrap_or(1).max(1), size.unwrap_or(PAGE_SIZE).max(1));
    let start = usize::try_from((page - 1).saturating_mul(size)).unwrap_or(usize::MAX);
    let size_usize = usize::try_from(size).unwrap_or(usize::MAX);
    let mut count = 0usize;
    let mut results = Vec::new();
    for (index, record) in matching.enumerate() {
        if index >= start && index - start < size_usize {
            results.push(record.clone());
        }
        count = index + 1;
    }
    let count = i64::try_from(count).unwrap_or(i64::MAX);
    if results.is_empty() && page > 1 {
        let pages = (count + size - 1) / size;
        return Err(ServerError::not_found(format!(
            "page {page} does not exist: the list has {count} records, {pages} page(s) of {size}"
        )));
    }
    Ok(Page::new(count, None::<String>, None::<String>, results))
}
