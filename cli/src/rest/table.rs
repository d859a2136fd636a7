//! Plain-text tables: a header row, then rows, columns padded to the widest cell.
//!
//! Every cell is server text: it goes through the one terminal sanitiser
//! ([`energy_runtime::text::for_terminal`]) as it enters, so a table never writes a control character
//! and no cell is longer than [`CELL_SHOWN`] characters.

use std::io;

use energy_runtime::text::for_terminal;

/// The most characters a cell shows (no real value comes near: product descriptions are ~200).
pub const CELL_SHOWN: usize = 500;

/// What a cell costs to hold beyond its text: the `String` itself.
const CELL_OVERHEAD: usize = std::mem::size_of::<String>();

/// How a column's cells line up.
#[derive(Clone, Copy, PartialEq, Eq)]
pub enum Align {
    Left,
    Right,
}

/// A table being filled.
pub struct Table {
    columns: Vec<(&'static str, Align)>,
    rows: Vec<Vec<String>>,
    held: usize,
    budget: usize,
}

/// A table reached its budget: it holds `rows` rows and refused the next.
#[derive(Debug)]
pub struct TableFull {
    pub rows: usize,
}

impl Table {
    pub fn new(columns: &[(&'static str, Align)]) -> Self {
        Self {
            columns: columns.to_vec(),
            rows: Vec::new(),
            held: 0,
            budget: usize::MAX,
        }
    }

    /// Refuses rows once the cells held would pass `bytes`.
    pub fn with_budget(mut self, bytes: usize) -> Self {
        self.budget = bytes;
        self
    }

    /// Adds a row, or refuses it when the table's budget would be passed.
    pub fn row(&mut self, cells: Vec<String>) -> Result<(), TableFull> {
        let cells: Vec<String> = cells
            .into_iter()
            .map(|cell| match for_terminal(&cell, CELL_SHOWN) {
                std::borrow::Cow::Borrowed(_) => cell,
                std::borrow::Cow::Owned(shown) => shown,
            })
            .collect();
        let cost: usize = cells.iter().map(|cell| cell.len() + CELL_OVERHEAD).sum();
        if self.held.saturating_add(cost) > self.budget {
            return Err(TableFull {
                rows: self.rows.len(),
            });
        }
        self.held += cost;
        self.rows.push(cells);
        Ok(())
    }

    /// Adds a row to a table without a budget.
    pub fn push(&mut self, cells: Vec<String>) {
        let _ = self.row(cells);
    }

    /// The rows held.
    pub fn len(&self) -> usize {
        self.rows.len()
    }

    /// Writes the table, line by line.
    pub fn write(&self, out: &mut impl io::Write) -> io::Result<()> {
        let mut widths: Vec<usize> = self
            .columns
            .iter()
            .map(|(h, _)| h.chars().count())
            .collect();
        for row in &self.rows {
            for (width, cell) in widths.iter_mut().zip(row) {
                *width = (*width).max(cell.chars().count());
            }
        }
        let headers: Vec<String> = self.columns.iter().map(|(h, _)| (*h).to_owned()).collect();
        let mut line = String::new();
        for row in std::iter::once(&headers).chain(&self.rows) {
            line.clear();
            for (index, ((cell, width), (_, align))) in
                row.iter().zip(&widths).zip(&self.columns).enumerate()
            {
                if index > 0 {
                    line.push_str("  ");
                }
                let pad = width - cell.chars().count();
                match align {
                    Align::Left => {
                        line.push_str(cell);
                        line.extend(std::iter::repeat_n(' ', pad));
                    }
                    Align::Right => {
                        line.extend(std::iter::repeat_n(' ', pad));
                        line.push_str(cell);
                    }
                }
            }
            writeln!(out, "{}", line.trim_end())?;
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cells_are_sanitised_and_the_budget_holds() {
        let mut table = Table::new(&[("NAME", Align::Left), ("N", Align::Right)]).with_budget(200);
        table
            .row(vec!["\x1b[2JAgile".to_owned(), "1".to_owned()])
            .expect("fits");
        let mut out = Vec::new();
        table.write(&mut out).expect("write");
        let text = String::from_utf8(out).expect("UTF-8");
        assert_eq!(text, "NAME          N\n\\x1b[2JAgile  1\n");
        let full = table
            .row(vec!["x".repeat(300), "2".to_owned()])
            .expect_err("over budget");
        assert_eq!(full.rows, 1);
        assert_eq!(table.len(), 1);
    }
}
