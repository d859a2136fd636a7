//! Plain-text tables: a header row, then rows, columns padded to the widest cell.

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
}

impl Table {
    pub fn new(columns: &[(&'static str, Align)]) -> Self {
        Self {
            columns: columns.to_vec(),
            rows: Vec::new(),
        }
    }

    pub fn row(&mut self, cells: Vec<String>) {
        self.rows.push(cells);
    }

    pub fn render(&self) -> String {
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
        let mut out = String::new();
        for row in std::iter::once(&headers).chain(&self.rows) {
            let mut line = String::new();
            for (index, ((cell, width), (_, align))) in
                row.iter().zip(&widths).zip(&self.columns).enumerate()
            {
                if index > 0 {
                    line.push_str("  ");
                }
                let pad = " ".repeat(width - cell.chars().count());
                match align {
                    Align::Left => {
                        line.push_str(cell);
                        line.push_str(&pad);
                    }
                    Align::Right => {
                        line.push_str(&pad);
                        line.push_str(cell);
                    }
                }
            }
            out.push_str(line.trim_end());
            out.push('\n');
        }
        out
    }
}
