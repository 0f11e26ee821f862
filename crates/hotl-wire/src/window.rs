//! Asking an OpenAI-compatible server how large its context window is, for models whose
//! family says nothing about it (a local server's window is whatever it was started with):
//! llama.cpp answers at `/props` (`default_generation_settings.n_ctx`, the window it serves,
//! and `chat_template_caps`: whether its chat template renders tools at all), vLLM in its
//! model list (`max_model_len`). Servers that say neither leave it unknown. Only a server on
//! this machine or a private network is asked: a remote service would cost every start a
//! round trip, and its models' windows are known or configured.

use std::time::Duration;

use crate::client::HttpProvider;

/// How long the question may take in all: it is asked before the first request.
const WAIT: Duration = Duration::from_millis(1000);

/// What a local server says of how it serves a model.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Served {
    /// Its context window in tokens, when it says.
    pub context_window: Option<u64>,
    /// Its chat template has no tools section (llama.cpp then drops the request's tools
    /// without a word, and the model never calls one).
    pub ignores_tools: bool,
}

impl HttpProvider {
    /// The context window the server serves `model` with, in tokens, when it says (within
    /// a second: a server that does not answer is not waited for).
    pub async fn served_context_window(&self, model: &str) -> Option<u64> {
        self.served(model).await.context_window
    }

    /// What the server says of how it serves `model` (within a second; nothing from a server
    /// that is not local or does not answer).
    pub async fn served(&self, model: &str) -> Served {
        if !is_local(self.base()) {
            return Served::default();
        }
        let asked = tokio::time::timeout(WAIT, self.ask_served(model)).await;
        match &asked {
            Ok(Served {
                context_window: Some(window),
                ..
            }) => tracing::debug!(window, "the server says its context window"),
            Ok(_) => tracing::debug!("the server does not say its context window"),
            Err(_) => tracing::debug!("the server did not say its context window in time"),
        }
        asked.unwrap_or_default()
    }

    async fn ask_served(&self, model: &str) -> Served {
        let root = self.base().strip_suffix("/v1").unwrap_or(self.base());
        let mut served = Served::default();
        if let Some(props) = self.get_json(&format!("{root}/props")).await {
            served.ignores_tools =
                props["chat_template_caps"]["supports_tools"].as_bool() == Some(false);
            served.context_window = props["default_generation_settings"]["n_ctx"]
                .as_u64()
                .filter(|&n| n > 0);
            if served.context_window.is_some() {
                return served;
            }
        }
        let Some(models) = self.get_json(&format!("{}/models", self.base())).await else {
            return served;
        };
        served.context_window = models["data"]
            .as_array()
            .and_then(|list| list.iter().find(|m| m["id"].as_str() == Some(model)))
            .and_then(|m| m["max_model_len"].as_u64())
            .filter(|&n| n > 0);
        served
    }

    async fn get_json(&self, url: &str) -> Option<serde_json::Value> {
        let response = match self
            .client()
            .get(url)
            .headers(self.auth_headers())
            .send()
            .await
        {
            Ok(response) => response,
            Err(e) => {
                tracing::debug!(url, "asking the server failed: {e}");
                return None;
            }
        };
        if !response.status().is_success() {
            return None;
        }
        serde_json::from_slice(&response.bytes().await.ok()?).ok()
    }
}

/// Whether `url` names this machine or a private network (`localhost`, loopback, private and
/// link-local addresses, `*.local`).
pub fn is_local(url: &str) -> bool {
    let Ok(url) = reqwest::Url::parse(url) else {
        return false;
    };
    let Some(host) = url.host_str() else {
        return false;
    };
    match host
        .trim_start_matches('[')
        .trim_end_matches(']')
        .parse::<std::net::IpAddr>()
    {
        Ok(std::net::IpAddr::V4(ip)) => ip.is_loopback() || ip.is_private() || ip.is_link_local(),
        Ok(std::net::IpAddr::V6(ip)) => {
            ip.is_loopback() || ip.is_unique_local() || ip.is_unicast_link_local()
        }
        Err(_) => host == "localhost" || host.ends_with(".local"),
    }
}

#[cfg(test)]
mod tests {
    use super::is_local;

    #[test]
    fn only_this_machine_and_private_networks_are_asked() {
        for url in [
            "http://127.0.0.1:8080/v1",
            "http://localhost:11434/v1",
            "http://192.168.1.20:8000/v1",
            "http://10.0.0.5/v1",
            "http://[::1]:8080/v1",
            "http://gpu-box.local:8000/v1",
        ] {
            assert!(is_local(url), "{url}");
        }
        for url in [
            "https://api.openai.com/v1",
            "https://api.groq.com/openai/v1",
            "http://8.8.8.8/v1",
        ] {
            assert!(!is_local(url), "{url}");
        }
    }
}
