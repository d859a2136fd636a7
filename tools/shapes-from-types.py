#!/usr/bin/env python3
"""Issue 48, item 3, measured by its mechanism alone: what a struct's table costs the compiler when each
field's shape is written in a row (`Optional(&Str)`, as `table_struct!` rows are today) against the same
shape taken from the field's Rust type (an associated constant, `<Option<String> as HasShape>::SHAPE`,
with `&const { Shape::Optional(T::SHAPE) }` for the generic wrappers).

Writes two crates of 332 structs of 3 to 10 fields each (seeded; about a tenth of the fields hold another
struct) into OUT (default /tmp/item3): `rows/` and `types/`, alike but for the shapes. Then measure each
crate's rustc, as BENCHMARKS.md section 26 does:

  cd OUT/<crate> && touch src/lib.rs && CARGO_INCREMENTAL=0 valgrind --tool=callgrind \
    --trace-children=yes cargo build -q        # the largest process's count is the crate's rustc

It measures the shapes only, not the rest of item 3 (the struct declared inside the macro).

usage: tools/shapes-from-types.py [OUT]
"""
import os
import random
import sys

OUT = sys.argv[1] if len(sys.argv) > 1 else "/tmp/item3"
random.seed(7)
N=332
types=[("String","Str"),("i64","Int"),("f64","Num"),("bool","Bool"),("Option<String>","Optional(&Str)"),("Option<i64>","Optional(&Int)"),("Vec<String>","Array(&Str)"),("Option<Vec<i64>>","Optional(&Array(&Int))")]
structs=[]
for i in range(N):
    n=random.randint(3,10)
    fields=[]
    for j in range(n):
        if i>0 and random.random()<0.1:
            k=random.randrange(i)
            fields.append((f"f{j}",f"S{k}",f"Struct(&T{k})"))
        else:
            t,s=random.choice(types); fields.append((f"f{j}",t,s))
    structs.append(fields)
common='''#![allow(dead_code, non_upper_case_globals)]
#[derive(Debug)]
pub enum Shape { Str, Int, Num, Bool, Array(&'static Shape), Optional(&'static Shape), Struct(&'static Table) }
#[derive(Debug)]
pub struct Table { pub fields: &'static [&'static str], pub shapes: &'static [&'static Shape] }
'''
for variant in ("rows","types"):
    os.makedirs(f"{OUT}/{variant}/src", exist_ok=True)
    open(f"{OUT}/{variant}/Cargo.toml", "w").write(f'[package]\nname="{variant}"\nversion="0.1.0"\nedition="2024"\n[lib]\npath="src/lib.rs"\n')
    out=[common]
    if variant=="types":
        out.append('''pub trait HasShape { const SHAPE: &'static Shape; }
impl HasShape for String { const SHAPE: &'static Shape = &Shape::Str; }
impl HasShape for i64 { const SHAPE: &'static Shape = &Shape::Int; }
impl HasShape for f64 { const SHAPE: &'static Shape = &Shape::Num; }
impl HasShape for bool { const SHAPE: &'static Shape = &Shape::Bool; }
impl<T: HasShape> HasShape for Option<T> { const SHAPE: &'static Shape = &const { Shape::Optional(T::SHAPE) }; }
impl<T: HasShape> HasShape for Vec<T> { const SHAPE: &'static Shape = &const { Shape::Array(T::SHAPE) }; }
''')
    for i,fields in enumerate(structs):
        out.append(f"pub struct S{i} {{ " + ", ".join(f"pub {f}: {'Box<'+t+'>' if t.startswith('S') else t}" for f,t,s in fields) + " }")
        names=", ".join(f'"{f}"' for f,t,s in fields)
        if variant=="rows":
            shapes=", ".join("&Shape::"+s.replace("(&","(&Shape::").replace("Struct(&Shape::T","Struct(&T") for f,t,s in fields)
        else:
            shapes=", ".join(f"<{t} as HasShape>::SHAPE" for f,t,s in fields)
            out.append(f"impl HasShape for S{i} {{ const SHAPE: &'static Shape = &Shape::Struct(&T{i}); }}")
        out.append(f"pub static T{i}: Table = Table {{ fields: &[{names}], shapes: &[{shapes}] }};")
    open(f"{OUT}/{variant}/src/lib.rs", "w").write("\n".join(out)+"\n")
