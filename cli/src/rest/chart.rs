//! A terminal bar chart of unit rates over time: one row per period, oldest first, bars from a zero
//! axis; negative prices go left of the axis, drawn in another shade, so they stand out.

use jiff::Timestamp;
use jiff::tz::TimeZone;

const POSITIVE: char = '█';
const NEGATIVE: char = '░';
const AXIS: char = '│';

/// What a point of the chart costs to hold, drawing included (the point, its label and value text),
/// for the budget of a chart: a chart keeps no rate, only this.
pub const BYTES_PER_POINT: usize = 128;

/// One rate as the chart needs it: where its period starts, and its price inc VAT.
pub type Point = (Timestamp, f64);

/// The chart of `points` (any order; sorted here) in `width` columns, with times in `zone`.
pub fn render(points: &mut [Point], zone: &TimeZone, width: usize) -> String {
    points.sort_by_key(|(valid_from, _)| *valid_from);
    let rates: Vec<Rate> = points
        .iter()
        .map(|&(valid_from, value_inc_vat)| Rate {
            value_inc_vat,
            valid_from,
        })
        .collect();
    let rates: Vec<&Rate> = rates.iter().collect();
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

/// A point, named for the drawing code.
struct Rate {
    value_inc_vat: f64,
    valid_from: Timestamp,
}
