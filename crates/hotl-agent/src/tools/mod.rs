//! The built-in tools.

use std::sync::Arc;

use crate::tool::Tool;

/// Every built-in tool, in the order the model sees them.
pub fn builtin() -> Vec<Arc<dyn Tool>> {
    Vec::new()
}
