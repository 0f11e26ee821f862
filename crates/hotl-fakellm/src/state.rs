//! The server's shared state: the script queue, faults, captured requests and both cache
//! simulators, behind one mutex that is never held across an await.

use std::collections::VecDeque;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Mutex, MutexGuard, PoisonError};

use axum::http::HeaderMap;
use bytes::Bytes;

use crate::anthropic;
use crate::api_error::ApiError;
use crate::capture::{Captured, Endpoint};
use crate::clock::Clock;
use crate::config::Config;
use crate::demo;
use crate::fault::Fault;
use crate::openai;
use crate::request::{Env, Prepared, UsagePlan};
use crate::script::{Entry, Script, Stop};
use crate::tokens::Counter;
use crate::turn::{Output, Usage};

/// What answers a request.
#[derive(Debug)]
pub(crate) enum Source {
    Output(Output),
    Replay(Bytes),
}

/// The chosen answer and the fault to apply to it.
#[derive(Debug)]
pub(crate) struct Pick {
    pub source: Option<Source>,
    pub fault: Option<Fault>,
}

#[derive(Debug)]
struct Inner {
    script: Script,
    pushed_faults: VecDeque<Fault>,
    standing_fault: Option<Fault>,
    context_window: Option<u64>,
    captured: Vec<Captured>,
    anthropic_cache: anthropic::cache::Store,
    openai_cache: openai::cache::Store,
    served: u64,
}

/// State shared by every handler and the [`crate::FakeLlm`] handle.
#[derive(Debug)]
pub(crate) struct Shared {
    pub config: Config,
    pub clock: Clock,
    pub counter: Counter,
    seq: AtomicU64,
    inner: Mutex<Inner>,
}

impl Shared {
    pub(crate) fn new(mut config: Config, clock: Clock) -> Shared {
        let script = Script::new(std::mem::take(&mut config.script));
        let counter = Counter::new(config.tokenizer);
        counter.warm();
        Shared {
            inner: Mutex::new(Inner {
                script,
                pushed_faults: VecDeque::new(),
                standing_fault: config.fault.clone(),
                context_window: config.context_window,
                captured: Vec::new(),
                anthropic_cache: Default::default(),
                openai_cache: Default::default(),
                served: 0,
            }),
            config,
            clock,
            counter,
            seq: AtomicU64::new(0),
        }
    }

    fn lock(&self) -> MutexGuard<'_, Inner> {
        // A panic elsewhere leaves plain data behind; keep serving.
        self.inner.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// Records a request and returns its 1-based sequence number.
    pub(crate) fn capture(
        &self,
        endpoint: Endpoint,
        method: &str,
        path: &str,
        headers: &HeaderMap,
        body: &Bytes,
    ) -> u64 {
        let seq = self.seq.fetch_add(1, Ordering::SeqCst) + 1;
        let captured = Captured {
            seq,
            endpoint,
            method: method.to_string(),
            path: path.to_string(),
            headers: headers
                .iter()
                .map(|(k, v)| {
                    (
                        k.as_str().to_string(),
                        String::from_utf8_lossy(v.as_bytes()).into_owned(),
                    )
                })
                .collect(),
            body: body.clone(),
        };
        if let Some(dir) = &self.config.capture_dir
            && let Err(e) = captured.write_to(dir)
        {
            eprintln!("hotl-fakellm: capture failed: {e}");
        }
        let mut inner = self.lock();
        let at = inner.captured.partition_point(|c| c.seq < seq);
        inner.captured.insert(at, captured);
        seq
    }

    pub(crate) fn env(&self, headers: &HeaderMap) -> Env<'_> {
        let api_key = headers
            .get("x-api-key")
            .or_else(|| headers.get("authorization"))
            .map(|v| {
                String::from_utf8_lossy(v.as_bytes())
                    .trim_start_matches("Bearer ")
                    .to_string()
            })
            .unwrap_or_default();
        Env {
            config: &self.config,
            counter: self.counter,
            api_key,
        }
    }

    /// Chooses the answer: a pushed one-shot fault first (an HTTP fault consumes no reply;
    /// a stream fault renders the next reply without consuming it), else the next script
    /// entry with its own fault or the standing fault, else the demo model.
    pub(crate) fn pick(&self, prepared: &Prepared) -> Result<Pick, ApiError> {
        let mut inner = self.lock();
        if prepared.convo.prewarm {
            return Ok(Pick {
                source: Some(Source::Output(Output::empty(Stop::MaxTokens))),
                fault: None,
            });
        }
        let pushed = inner.pushed_faults.pop_front();
        if let Some(f) = &pushed
            && f.status.is_some()
        {
            return Ok(Pick {
                source: None,
                fault: pushed,
            });
        }
        let consume = pushed.is_none();
        let entry = inner.script.pick(&prepared.convo.last_input, consume);
        let (source, own_fault) = match entry {
            Some(Entry::Reply(r)) => (Source::Output(Output::from_reply(&r)), r.fault),
            Some(Entry::Replay(b)) => (Source::Replay(b), None),
            None if self.config.demo => (
                Source::Output(Output::from_reply(&demo::reply(&prepared.convo))),
                None,
            ),
            None => {
                let served = inner.served;
                return Err(ApiError {
                    status: 500,
                    kind: "api_error",
                    message: format!("hotl-fakellm: script exhausted after {served} replies"),
                    openai_type: Some("server_error"),
                    param: None,
                    code: Some("script_exhausted"),
                    retry_after_ms: None,
                    should_retry: Some(false),
                });
            }
        };
        if consume {
            inner.served += 1;
        }
        let fault = pushed
            .or(own_fault)
            .or_else(|| inner.standing_fault.clone());
        let source = match &fault {
            Some(f) if f.status.is_some() => None,
            _ => Some(source),
        };
        Ok(Pick { source, fault })
    }

    /// Computes the usage of answering `prepared` with `output`, updating the caches.
    pub(crate) fn account(&self, prepared: &Prepared, output: &Output) -> Usage {
        let (output_tokens, thinking) = output.tokens(&self.counter);
        let now = self.clock.elapsed();
        let mut inner = self.lock();
        let mut usage = Usage {
            output: output_tokens,
            thinking,
            ..Usage::default()
        };
        match &prepared.usage {
            UsagePlan::Anthropic(plan) => {
                let o = inner.anthropic_cache.apply(plan, now);
                usage.prompt = plan.total();
                usage.cache_read = o.read;
                usage.cache_write_5m = o.write_5m;
                usage.cache_write_1h = o.write_1h;
            }
            UsagePlan::OpenAi(plan) => {
                usage.prompt = plan.total();
                usage.cache_read = inner
                    .openai_cache
                    .apply(plan, &self.config.openai_cache, now);
            }
        }
        usage
    }

    pub(crate) fn captured(&self) -> Vec<Captured> {
        self.lock().captured.clone()
    }

    pub(crate) fn push_entry(&self, entry: Entry) {
        self.lock().script.push(entry);
    }

    pub(crate) fn push_fault(&self, fault: Fault) {
        self.lock().pushed_faults.push_back(fault);
    }

    pub(crate) fn set_fault(&self, fault: Option<Fault>) {
        self.lock().standing_fault = fault;
    }

    pub(crate) fn set_context_window(&self, tokens: Option<u64>) {
        self.lock().context_window = tokens;
    }

    pub(crate) fn context_window(&self) -> Option<u64> {
        self.lock().context_window
    }

    pub(crate) fn remaining(&self) -> usize {
        self.lock().script.len()
    }

    pub(crate) fn clear_caches(&self) {
        let mut inner = self.lock();
        inner.anthropic_cache.clear();
        inner.openai_cache.clear();
    }
}
