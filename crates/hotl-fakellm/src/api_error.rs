//! Wire errors: the HTTP error responses of each dialect, with the real bodies and headers.
//!
//! Anthropic: `{"type":"error","error":{"type","message"},"request_id"}` plus `request-id`.
//! OpenAI: `{"error":{"message","type","param","code"}}` plus `x-request-id`.

use axum::body::Body;
use axum::http::{HeaderValue, StatusCode, header};
use axum::response::Response;

use crate::config::Dialect;
use crate::fault::Fault;
use crate::json::{Json, obj};

/// An error answer, before a dialect renders it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct ApiError {
    pub status: u16,
    /// Anthropic `error.type`; OpenAI `error.type` unless `openai_type` is set.
    pub kind: &'static str,
    pub message: String,
    /// OpenAI only.
    pub openai_type: Option<&'static str>,
    pub param: Option<String>,
    pub code: Option<&'static str>,
    pub retry_after_ms: Option<u64>,
    pub should_retry: Option<bool>,
}

impl ApiError {
    /// 400 `invalid_request_error`.
    pub(crate) fn invalid(message: impl Into<String>) -> ApiError {
        ApiError {
            status: 400,
            kind: "invalid_request_error",
            message: message.into(),
            openai_type: None,
            param: None,
            code: None,
            retry_after_ms: None,
            should_retry: None,
        }
    }

    /// A request longer than the model's context window, as each provider words it (400).
    /// The Responses API names no numbers.
    pub(crate) fn context_overflow(dialect: Dialect, tokens: u64, window: u64) -> ApiError {
        match dialect {
            Dialect::Anthropic => ApiError::invalid(format!(
                "prompt is too long: {tokens} tokens > {window} maximum"
            )),
            Dialect::OpenAiChat => ApiError::invalid(format!(
                "This model's maximum context length is {window} tokens. However, your messages \
                 resulted in {tokens} tokens. Please reduce the length of the messages."
            ))
            .at("messages", Some("context_length_exceeded")),
            Dialect::OpenAiResponses => ApiError::invalid(
                "Your input exceeds the context window of this model. Please adjust your input \
                 and try again.",
            )
            .at("input", Some("context_length_exceeded")),
        }
    }

    /// Sets the OpenAI `param` and `code`.
    pub(crate) fn at(mut self, param: impl Into<String>, code: Option<&'static str>) -> ApiError {
        self.param = Some(param.into());
        self.code = code;
        self
    }

    /// The error a status fault answers with, in `dialect`'s vocabulary.
    pub(crate) fn from_fault(dialect: Dialect, status: u16, fault: &Fault) -> ApiError {
        let anthropic = dialect == Dialect::Anthropic;
        let (kind, message, openai_type, code): (
            &'static str,
            &str,
            &'static str,
            Option<&'static str>,
        ) = match status {
            400 => (
                "invalid_request_error",
                "Invalid request.",
                "invalid_request_error",
                None,
            ),
            401 => (
                "authentication_error",
                "invalid x-api-key",
                "invalid_request_error",
                Some("invalid_api_key"),
            ),
            403 => (
                "permission_error",
                "Your API key does not have permission to use the specified resource.",
                "invalid_request_error",
                None,
            ),
            404 => (
                "not_found_error",
                "Not found.",
                "invalid_request_error",
                None,
            ),
            413 => (
                "request_too_large",
                "Request exceeds the maximum allowed number of bytes.",
                "invalid_request_error",
                None,
            ),
            429 if anthropic => (
                "rate_limit_error",
                "This request would exceed your organization's rate limit. Please try again later.",
                "",
                None,
            ),
            429 => (
                "rate_limit_error",
                "Rate limit reached for requests. Please try again later.",
                "requests",
                Some("rate_limit_exceeded"),
            ),
            504 => ("timeout_error", "Request timed out.", "server_error", None),
            529 => ("overloaded_error", "Overloaded", "server_error", None),
            503 if !anthropic => (
                "api_error",
                "The engine is currently overloaded, please try again later.",
                "server_error",
                None,
            ),
            _ if anthropic => ("api_error", "Internal server error", "", None),
            _ => (
                "api_error",
                "The server had an error while processing your request. Sorry about that!",
                "server_error",
                None,
            ),
        };
        ApiError {
            status,
            kind,
            message: fault.message.clone().unwrap_or_else(|| message.to_string()),
            openai_type: (!openai_type.is_empty()).then_some(openai_type),
            param: None,
            code,
            retry_after_ms: fault.retry_ms(),
            should_retry: fault.should_retry,
        }
    }

    /// The body in `dialect`'s shape.
    pub(crate) fn body(&self, dialect: Dialect, request_id: &str) -> Json {
        match dialect {
            Dialect::Anthropic => obj! {
                "type": "error",
                "error": obj! {"type": self.kind, "message": &self.message},
                "request_id": request_id,
            },
            Dialect::OpenAiChat | Dialect::OpenAiResponses => obj! {
                "error": obj! {
                    "message": &self.message,
                    "type": self.openai_type.unwrap_or(self.kind),
                    "param": self.param.as_deref(),
                    "code": self.code,
                },
            },
        }
    }

    /// The full HTTP response.
    pub(crate) fn into_response(self, dialect: Dialect, request_id: &str) -> Response {
        let body = self.body(dialect, request_id).to_compact();
        let mut resp = Response::new(Body::from(body));
        *resp.status_mut() =
            StatusCode::from_u16(self.status).unwrap_or(StatusCode::INTERNAL_SERVER_ERROR);
        let headers = resp.headers_mut();
        headers.insert(
            header::CONTENT_TYPE,
            HeaderValue::from_static("application/json"),
        );
        let id_header = match dialect {
            Dialect::Anthropic => "request-id",
            _ => "x-request-id",
        };
        if let Ok(v) = HeaderValue::from_str(request_id) {
            headers.insert(id_header, v);
        }
        if let Some(ms) = self.retry_after_ms {
            headers.insert("retry-after", HeaderValue::from(ms.div_ceil(1000)));
            headers.insert("retry-after-ms", HeaderValue::from(ms));
        }
        if let Some(retry) = self.should_retry {
            headers.insert(
                "x-should-retry",
                HeaderValue::from_static(if retry { "true" } else { "false" }),
            );
        }
        resp
    }
}
