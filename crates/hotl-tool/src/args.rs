//! Reading a tool call's arguments, with errors that name the field at fault.
//!
//! Every call is parsed here once, before its permission is decided and before it runs, moves
//! and built-in tools alike. A serde struct would say "invalid type: string, expected u64 at
//! line 1 column 20", which does not tell the model which field to fix; these accessors do
//! ("`query` must be a string, got the number 5"). Unknown fields are ignored and `null` counts
//! as absent for optional fields.

use hotl_log::ToolInput;
use serde_json::{Map, Value};

/// A failed call, as the message the model sees.
pub type Fail = String;

/// The arguments of one call: a JSON object.
#[derive(Clone, Debug, Default)]
pub struct Args {
    map: Map<String, Value>,
}

impl Args {
    /// Parses `input`; fails when it is not a JSON object.
    pub fn parse(input: &ToolInput) -> Result<Args, Fail> {
        match serde_json::from_str::<Value>(input.get()) {
            Ok(Value::Object(map)) => Ok(Args { map }),
            Ok(other) => Err(format!(
                "arguments must be a JSON object, got {}",
                describe(&other)
            )),
            Err(e) => Err(format!("arguments are not valid JSON: {e}")),
        }
    }

    /// Every field, as given.
    pub fn fields(&self) -> &Map<String, Value> {
        &self.map
    }

    fn present(&self, name: &str) -> Option<&Value> {
        self.map.get(name).filter(|v| !v.is_null())
    }

    fn required(&self, name: &str) -> Result<&Value, Fail> {
        match self.map.get(name) {
            Some(v) => Ok(v),
            None => Err(format!("missing required field `{name}`")),
        }
    }

    /// A required string.
    pub fn string(&self, name: &str) -> Result<String, Fail> {
        let v = self.required(name)?;
        v.as_str()
            .map(str::to_owned)
            .ok_or_else(|| wrong(name, "a string", v))
    }

    /// An optional string.
    pub fn opt_string(&self, name: &str) -> Result<Option<String>, Fail> {
        match self.present(name) {
            None => Ok(None),
            Some(v) => v
                .as_str()
                .map(|s| Some(s.to_owned()))
                .ok_or_else(|| wrong(name, "a string", v)),
        }
    }

    /// An optional non-negative integer (`10.0` is accepted as 10).
    pub fn opt_u64(&self, name: &str) -> Result<Option<u64>, Fail> {
        let Some(v) = self.present(name) else {
            return Ok(None);
        };
        if let Some(n) = v.as_u64() {
            return Ok(Some(n));
        }
        match v.as_f64() {
            // Integral and in range: the cast is exact.
            Some(f) if f >= 0.0 && f.fract() == 0.0 && f < u64::MAX as f64 => Ok(Some(f as u64)),
            _ => Err(wrong(name, "a non-negative integer", v)),
        }
    }

    /// An optional boolean.
    pub fn opt_bool(&self, name: &str) -> Result<Option<bool>, Fail> {
        match self.present(name) {
            None => Ok(None),
            Some(v) => v
                .as_bool()
                .map(Some)
                .ok_or_else(|| wrong(name, "true or false", v)),
        }
    }

    /// A required string that is not empty (nor only whitespace).
    pub fn text(&self, name: &str) -> Result<String, Fail> {
        let text = self.string(name)?;
        if text.trim().is_empty() {
            return Err(format!("`{name}` must not be empty"));
        }
        Ok(text)
    }

    /// A required stamp: `"t12"`, `"T12"`, `"12"` or the number 12.
    pub fn stamp(&self, name: &str) -> Result<u64, Fail> {
        let v = self.required(name)?;
        hotl_view::parse_stamp(v).ok_or_else(|| wrong(name, "a stamp such as \"t12\"", v))
    }

    /// The value of a field, as given (`None` when absent).
    pub fn get(&self, name: &str) -> Option<&Value> {
        self.map.get(name)
    }

    /// A required array.
    pub fn array(&self, name: &str) -> Result<&[Value], Fail> {
        let v = self.required(name)?;
        v.as_array()
            .map(Vec::as_slice)
            .ok_or_else(|| wrong(name, "an array", v))
    }
}

/// "`field` must be EXPECTED, got DESCRIPTION".
pub fn wrong(name: &str, expected: &str, got: &Value) -> Fail {
    format!("`{name}` must be {expected}, got {}", describe(got))
}

/// A short description of a JSON value: its type and, for scalars, the value.
pub fn describe(v: &Value) -> String {
    match v {
        Value::Null => "null".to_owned(),
        Value::Bool(b) => format!("the boolean {b}"),
        Value::Number(n) => format!("the number {n}"),
        Value::String(s) if s.chars().count() > 40 => "a string".to_owned(),
        Value::String(s) => format!("the string {s:?}"),
        Value::Array(_) => "an array".to_owned(),
        Value::Object(_) => "an object".to_owned(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn args(json: &str) -> Args {
        Args::parse(&ToolInput::from_json(json).unwrap()).unwrap()
    }

    #[test]
    fn errors_name_the_field() {
        let a = args(r#"{"path": 3, "offset": "10", "all": "yes", "extra": 1}"#);
        assert_eq!(
            a.string("path").unwrap_err(),
            "`path` must be a string, got the number 3"
        );
        assert_eq!(
            a.opt_u64("offset").unwrap_err(),
            "`offset` must be a non-negative integer, got the string \"10\""
        );
        assert!(a.opt_bool("all").unwrap_err().starts_with("`all` must be"));
        assert_eq!(
            a.string("content").unwrap_err(),
            "missing required field `content`"
        );
    }

    #[test]
    fn null_is_absent_for_optional_fields_and_floats_may_be_integral() {
        let a = args(r#"{"offset": null, "limit": 20.0, "neg": -1}"#);
        assert_eq!(a.opt_u64("offset").unwrap(), None);
        assert_eq!(a.opt_u64("limit").unwrap(), Some(20));
        assert!(a.opt_u64("neg").is_err());
    }

    #[test]
    fn non_objects_are_refused() {
        let err = Args::parse(&ToolInput::from_json("[1]").unwrap())
            .err()
            .unwrap();
        assert_eq!(err, "arguments must be a JSON object, got an array");
    }
}
