//! A struct that holds itself, however deep, is read and written by its table like any other, and its
//! rows' shapes are checked against its fields' types (`Shaped::SHAPE` of a nested struct is its table).

use energy_api_core::read::Reader;
use energy_api_core::table::{FromFields, Shape};
use energy_api_core::table_struct;

/// A tree node, as the generator writes a shared type that holds itself through an optional field and
/// an array (the `cycles` fixture).
#[derive(Debug, PartialEq)]
pub struct Node {
    name: String,
    parent: Option<Box<Node>>,
    children: Vec<Node>,
}
table_struct!(
    nested Node,
    [name: Str, parent: Optional(&Struct(&Node)) => omit_none, children: Array(&Struct(&Node))],
    by_name: [2, 1, 3, 0],
);

/// A payload that holds the tree.
#[derive(Debug, PartialEq)]
pub struct TreePlanted {
    root: Node,
}
table_struct!(TreePlanted, [root: Struct(&Node)], by_name: [0, 1]);

const TREE: &str = r#"{"root":{"name":"site","children":[{"name":"meter","parent":{"name":"site","children":[]},"children":[{"name":"register","children":[]}]}]}}"#;

fn leaf(name: &str) -> Node {
    Node {
        name: name.to_owned(),
        parent: None,
        children: Vec::new(),
    }
}

fn tree() -> TreePlanted {
    TreePlanted {
        root: Node {
            name: "site".to_owned(),
            parent: None,
            children: vec![Node {
                name: "meter".to_owned(),
                parent: Some(Box::new(leaf("site"))),
                children: vec![leaf("register")],
            }],
        },
    }
}

#[test]
fn a_tree_reads_through_serde_and_the_fast_reader_and_writes_back() {
    let through_serde: TreePlanted = serde_json::from_str(TREE).expect("serde reads the tree");
    assert_eq!(through_serde, tree());
    let fast = Reader::read_all::<TreePlanted>(TREE).expect("the fast reader reads the tree");
    assert_eq!(fast, tree());
    assert_eq!(
        serde_json::to_string(&through_serde).expect("written"),
        TREE
    );
}

#[test]
fn a_node_deep_in_the_tree_is_checked_against_its_table() {
    let wrong = TREE.replace(r#""name":"register""#, r#""name":7"#);
    let error = serde_json::from_str::<TreePlanted>(&wrong).expect_err("a number is not a name");
    assert!(
        error
            .to_string()
            .starts_with("invalid type: integer `7`, expected a string"),
        "{error}"
    );
    let missing = TREE.replace(r#""name":"register","#, "");
    let error = serde_json::from_str::<TreePlanted>(&missing).expect_err("a name is required");
    assert!(
        error.to_string().starts_with("missing field `name`"),
        "{error}"
    );
}

#[test]
fn the_recursive_field_shapes_lead_back_to_the_nodes_table() {
    let table = <Node as FromFields<'static>>::TABLE;
    let Shape::Optional(Shape::Struct(parent)) = &table.shapes[1] else {
        panic!("parent: {:?}", table.shapes[1]);
    };
    assert!(std::ptr::eq(*parent, table));
    let Shape::Array(Shape::Struct(child)) = &table.shapes[2] else {
        panic!("children: {:?}", table.shapes[2]);
    };
    assert!(std::ptr::eq(*child, table));
    // What the crate's tests check each row against: the shape of the field's type.
    let typed = energy_api_core::table::shape_of(|node: &Node| &node.parent);
    assert!(energy_api_core::table::shapes_match(
        &table.shapes[1..2],
        &[typed]
    ));
}
