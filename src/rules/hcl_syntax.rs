//! `hcl-syntax`: a Terraform file that is not valid HCL.

use super::{Rule, RuleMeta};
use crate::diagnostic::Severity;

pub struct HclSyntax;

pub static META: RuleMeta = RuleMeta {
    name: "hcl-syntax",
    severity: Severity::Error,
    needs_inventory: false,
    fixable: false,
    summary: "A Terraform file that is not valid HCL",
    why: "Terraform cannot read the file, so none of its node pools are created or checked.",
    explanation: r#"## What it catches
A Terraform file (it starts with a block such as `resource "type" "name" {` or an attribute
`name = value`) that does not parse as HCL native syntax: an unclosed brace or string, an
attribute without a value. The file is read with hcl-edit (the hcl-rs project), which follows
the HCL native syntax specification (hashicorp/hcl `hclsyntax/spec.md`).

## Why it matters
`terraform plan` refuses the file, and taintlint cannot read the node pools in it, so their
taints are neither checked nor used as an inventory.

## Example
```hcl
resource "google_container_node_pool" "gpu" {
  name =
}
```

## Fix
Correct the syntax at the position shown (`terraform fmt` reports the same place).
"#,
};

impl Rule for HclSyntax {
    fn meta(&self) -> &'static RuleMeta {
        &META
    }
}
