//! Types that contain themselves. A cycle through an array, an optional or a nullable field is fine (JSON
//! can end it) and its direct references are boxed in Rust; a cycle of required fields only can never be
//! satisfied by finite JSON and is an error.

use crate::ast::TypeDef;
use crate::diag::{Code, Diagnostic, Diagnostics};
use crate::model::{Struct, Type};
use std::collections::{BTreeMap, BTreeSet};

/// Reports the cycles of required fields among `structs` (all the shared types, or all the resources: a
/// reference's id is its index here) and boxes the references that close any cycle.
pub(super) fn break_cycles(
    structs: &mut [Struct],
    defs: &BTreeMap<&str, &TypeDef>,
    diags: &mut Diagnostics,
) {
    let direct = |s: &Struct, required_only: bool| -> Vec<usize> {
        s.fields
            .iter()
            .filter(|f| !required_only || !f.is_option())
            .filter_map(|f| match &f.ty {
                Type::Named(r) => Some(r.index()),
                _ => None,
            })
            .collect()
    };
    let all_edges: Vec<Vec<usize>> = structs.iter().map(|s| direct(s, false)).collect();
    let required_edges: Vec<Vec<usize>> = structs.iter().map(|s| direct(s, true)).collect();
    let required_components = strongly_connected(&required_edges);
    let mut reported = BTreeSet::new();
    for (i, s) in structs.iter().enumerate() {
        let c = required_components[i];
        let cyclic = required_edges[i]
            .iter()
            .any(|&j| required_components[j] == c);
        if cyclic && reported.insert(c) {
            let members: Vec<&str> = structs
                .iter()
                .enumerate()
                .filter(|&(j, _)| required_components[j] == c)
                .map(|(_, t)| t.name.as_str())
                .collect();
            if let Some(def) = defs.get(s.name.as_str()) {
                let d = Diagnostic::new(
                    Code::TypeCycle,
                    def.name.span,
                    format!("type `{}` contains itself through required fields only", s.name),
                )
                .label(format!("cycle: {} → {}", members.join(" → "), members[0]))
                .with_help("no finite JSON value has this shape; make one field of the cycle optional (`name?:`) or an array");
                diags.push(d);
            }
        }
    }
    let components = strongly_connected(&all_edges);
    for (i, s) in structs.iter_mut().enumerate() {
        for f in &mut s.fields {
            if let Type::Named(r) = &f.ty {
                f.boxed = components[i] == components[r.index()];
            }
        }
    }
}

/// Tarjan's algorithm, iterative (no recursion on hostile input): the component of every node.
fn strongly_connected(edges: &[Vec<usize>]) -> Vec<usize> {
    const UNSEEN: usize = usize::MAX;
    let n = edges.len();
    let (mut index, mut low, mut comp) = (vec![UNSEEN; n], vec![0; n], vec![UNSEEN; n]);
    let (mut on_stack, mut stack) = (vec![false; n], Vec::new());
    let (mut next_index, mut next_comp) = (0, 0);
    for root in 0..n {
        if index[root] != UNSEEN {
            continue;
        }
        let mut work = vec![(root, 0usize)];
        while let Some(&mut (v, ref mut edge)) = work.last_mut() {
            if *edge == 0 && index[v] == UNSEEN {
                index[v] = next_index;
                low[v] = next_index;
                next_index += 1;
                stack.push(v);
                on_stack[v] = true;
            }
            if let Some(&w) = edges[v].get(*edge) {
                *edge += 1;
                if index[w] == UNSEEN {
                    work.push((w, 0));
                } else if on_stack[w] {
                    low[v] = low[v].min(index[w]);
                }
                continue;
            }
            work.pop();
            if let Some(&(parent, _)) = work.last() {
                low[parent] = low[parent].min(low[v]);
            }
            if low[v] == index[v] {
                while let Some(w) = stack.pop() {
                    on_stack[w] = false;
                    comp[w] = next_comp;
                    if w == v {
                        break;
                    }
                }
                next_comp += 1;
            }
        }
    }
    comp
}

#[cfg(test)]
mod tests {
    use super::strongly_connected;

    #[test]
    fn components() {
        let c = strongly_connected(&[vec![1], vec![0], vec![2], vec![]]);
        assert_eq!(c[0], c[1]);
        assert_ne!(c[0], c[2]);
        assert_ne!(c[2], c[3]);
    }
}
