//! A terminal bar chart of unit rates over time: one row per period, oldest first, bars from a zero
//! axis; negative prices go left of the axis, drawn in another shade, so they stand out.

use energy_api::rest::StandardUnitRate;
use jiff::tz::TimeZone;

const POSITIVE: char = '█';
const NEGATIVE: char = '░';
const AXIS: char = '│';

/// The chart of `rates` (any order) in `width` columns, with times in `zone`.
pub fn render(rates: &[StandardUnitRate], zone: &TimeZone, width: usize) -> String {
    let mut rates: Vec<&StandardUnitRate> = rates.iter().collect();
    rates.sort_by_key(|rate| rate.valid_from);
    let labels: Vec<String> = rates
        .iter()
        .map(|rate| {
            rate.valid_from
                .to_zoned(zone.clone())
                .strftime("%Y-%m-%d %H:%M %Z")
                .to_string()
        })
        .collect();
    let values: Vec<String> = rates.iter().map(|r| r.value_inc_vat.to_string()).collect();
    let label_width = labels.iter().map(String::len).max().unwrap_or(0);
    let value_width = values.iter().map(String::len).max().unwrap_or(0);
    let bars_width = width.saturating_sub(label_width + value_width + 5).max(10);

    let low = rates
        .iter()
        .map(|r| r.value_inc_vat)
        .fold(0.0_f64, f64::min);
    let high = rates
        .iter()
        .map(|r| r.value_inc_vat)
        .fold(0.0_f64, f64::max);
    let span = if high > low { high - low } else { 1.0 };
    let cells = |value: f64| -> usize {
        let exact = value.abs() / span * bars_width as f64;
        // A price that is not zero always shows, however small next to the others.
        if value != 0.0 {
            (exact.round() as usize).max(1)
        } else {
            0
        }
    };
    let left_width = if low < 0.0 { cells(low) } else { 0 };

    let mut out = String::new();
    for ((label, value), rate) in labels.iter().zip(&values).zip(&rates) {
        let bar = cells(rate.value_inc_vat);
        let (left, right) = if rate.value_inc_vat < 0.0 {
            (
                format!(
                    "{}{}",
                    " ".repeat(left_width.saturating_sub(bar)),
                    NEGATIVE.to_string().repeat(bar)
                ),
                String::new(),
            )
        } else {
            (" ".repeat(left_width), POSITIVE.to_string().repeat(bar))
        };
        let line = format!("{label:<label_width$}  {value:>value_width$}  {left}{AXIS}{right}");
        out.push_str(line.trim_end());
        out.push('\n');
    }
    out.push_str(&format!(
        "{POSITIVE} price, {NEGATIVE} negative price (p/kWh inc VAT); one column is about {:.2} p/kWh\n",
        span / bars_width as f64
    ));
    if let (Some(min), Some(max)) = (
        rates
            .iter()
            .zip(&labels)
            .min_by(|a, b| a.0.value_inc_vat.total_cmp(&b.0.value_inc_vat)),
        rates
            .iter()
            .zip(&labels)
            .max_by(|a, b| a.0.value_inc_vat.total_cmp(&b.0.value_inc_vat)),
    ) {
        out.push_str(&format!(
            "lowest {} at {}, highest {} at {}\n",
            min.0.value_inc_vat, min.1, max.0.value_inc_vat, max.1
        ));
    }
    out
}
