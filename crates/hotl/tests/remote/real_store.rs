//! The manual smoke run against a real store (S3, R2, MinIO, ...): ignored unless run by
//! `scripts/remote-smoke.sh`, which reads `HOTL_TEST_S3_URL` (`s3://bucket/prefix`, required),
//! `HOTL_TEST_S3_ENDPOINT`, `HOTL_TEST_S3_REGION`, `HOTL_TEST_S3_ALLOW_HTTP=1`, and
//! `HOTL_TEST_S3_ACCESS_KEY_ID` / `HOTL_TEST_S3_SECRET_ACCESS_KEY` (else the standard AWS
//! variables). Everything runs under a prefix of its own below the URL, sealed under a key made
//! for the run, and is removed at the end.

use std::process::Command;

use hotl_testkit::TestResult;

use crate::common::{Env, Run, run};

/// The store the smoke run uses.
struct Real {
    url: String,
    endpoint: Option<String>,
    region: Option<String>,
    allow_http: bool,
    key_id: Option<String>,
    secret: Option<String>,
}

impl Real {
    fn from_env() -> TestResult<Real> {
        let var = |k: &str| std::env::var(k).ok().filter(|v| !v.is_empty());
        let base = var("HOTL_TEST_S3_URL")
            .ok_or("HOTL_TEST_S3_URL is not set: see scripts/remote-smoke.sh")?;
        Ok(Real {
            url: format!(
                "{}/hotl-smoke-{}-{}",
                base.trim_end_matches('/'),
                std::process::id(),
                std::time::SystemTime::now()
                    .duration_since(std::time::UNIX_EPOCH)?
                    .as_millis()
            ),
            endpoint: var("HOTL_TEST_S3_ENDPOINT"),
            region: var("HOTL_TEST_S3_REGION"),
            allow_http: var("HOTL_TEST_S3_ALLOW_HTTP").as_deref() == Some("1"),
            key_id: var("HOTL_TEST_S3_ACCESS_KEY_ID"),
            secret: var("HOTL_TEST_S3_SECRET_ACCESS_KEY"),
        })
    }

    /// A machine: a home whose `[remote]` is this store, sealed under `key`.
    fn machine(&self, key: &std::path::Path) -> TestResult<Env> {
        let env = Env::new()?;
        let config = env.root().join(".config/hotl");
        std::fs::create_dir_all(&config)?;
        let mut table = format!(
            "[remote]\nname = \"smoke\"\nurl = \"{}\"\nencrypt = true\nkey_file = \"{}\"\nlease_ttl_sec = 5\nallow_http = {}\n",
            self.url,
            key.display(),
            self.allow_http
        );
        for (k, v) in [("endpoint", &self.endpoint), ("region", &self.region)] {
            if let Some(v) = v {
                table.push_str(&format!("{k} = \"{v}\"\n"));
            }
        }
        std::fs::write(config.join("config.toml"), table)?;
        Ok(env)
    }

    fn hotl(&self, env: &Env, host: &str, args: &[&str]) -> Run {
        let mut cmd: Command = env.command();
        cmd.env("HOTL_PROVIDER", "demo").env("HOTL_HOSTNAME", host);
        for (k, v) in [
            ("AWS_ACCESS_KEY_ID", &self.key_id),
            ("AWS_SECRET_ACCESS_KEY", &self.secret),
        ] {
            if let Some(v) = v {
                cmd.env(k, v);
            }
        }
        for k in [
            "AWS_ACCESS_KEY_ID",
            "AWS_SECRET_ACCESS_KEY",
            "AWS_SESSION_TOKEN",
            "AWS_REGION",
        ] {
            if let Ok(v) = std::env::var(k)
                && !cmd.get_envs().any(|(name, _)| name == k)
            {
                cmd.env(k, v);
            }
        }
        cmd.args(args);
        run(cmd)
    }
}

#[test]
#[ignore = "needs a real bucket: scripts/remote-smoke.sh"]
fn a_session_goes_from_one_machine_to_another_through_a_real_store() -> TestResult {
    let real = Real::from_env()?;
    let dir = tempfile::tempdir()?;
    let key = dir.path().join("remote.key");
    let mut bytes = [0u8; 32];
    std::io::Read::read_exact(&mut std::fs::File::open("/dev/urandom")?, &mut bytes)?;
    std::fs::write(&key, bytes)?;
    std::fs::set_permissions(&key, std::os::unix::fs::PermissionsExt::from_mode(0o600))?;
    let (laptop, build_box) = (real.machine(&key)?, real.machine(&key)?);

    let checked = real.hotl(&laptop, "laptop", &["remote", "check"]).ok();
    assert!(checked.stdout.contains("encrypt: on"), "{checked}");
    real.hotl(&laptop, "laptop", &["-p", "the smoke test's first turn"])
        .ok();
    let listed = real
        .hotl(
            &build_box,
            "box",
            &["sessions", "list", "--remote", "--json"],
        )
        .ok();
    let rows: serde_json::Value = serde_json::from_str(&listed.stdout)?;
    let id = rows[0]["id"].as_str().ok_or("nothing listed")?.to_owned();
    assert_eq!(rows[0]["host"], "laptop", "{listed}");
    real.hotl(
        &build_box,
        "box",
        &["-r", &id, "-p", "the second, elsewhere"],
    )
    .ok();
    real.hotl(&laptop, "laptop", &["sessions", "pull", &id])
        .ok();
    assert_eq!(laptop.log_bytes(&id)?, build_box.log_bytes(&id)?);
    for (env, host) in [(&laptop, "laptop"), (&build_box, "box")] {
        real.hotl(env, host, &["sessions", "check", &id]).ok();
    }
    let found = real
        .hotl(
            &laptop,
            "laptop",
            &["recall", "--remote", "elsewhere", "--exact"],
        )
        .ok();
    assert!(found.stdout.contains("the second, elsewhere"), "{found}");

    // Everything of the run goes: the tree, then what is left under the prefix.
    let gone = real
        .hotl(
            &laptop,
            "laptop",
            &["gc", "--remote", "--older-than", "0s", "--json"],
        )
        .ok();
    let gone: serde_json::Value = serde_json::from_str(&gone.stdout)?;
    assert_eq!(gone["trees"][0]["root"], id.as_str(), "{gone}");
    real.remove_all()?;
    Ok(())
}

impl Real {
    /// Removes every object under the run's prefix (the marker, blobs still in their grace).
    fn remove_all(&self) -> TestResult {
        use futures_util::TryStreamExt;
        use object_store::{ObjectStore, ObjectStoreExt};
        // Opening a store installs the TLS provider hotl's HTTP clients use.
        hotl_remote::Bucket::open(&hotl_remote::RemoteConfig::new(&self.url), None)?;
        let rest = self.url.strip_prefix("s3://").ok_or("not an s3:// URL")?;
        let (bucket, prefix) = rest.split_once('/').ok_or("no prefix")?;
        let mut builder = object_store::aws::AmazonS3Builder::from_env()
            .with_bucket_name(bucket)
            .with_allow_http(self.allow_http)
            .with_region(
                self.region
                    .clone()
                    .unwrap_or_else(|| "us-east-1".to_owned()),
            );
        if let Some(endpoint) = &self.endpoint {
            builder = builder.with_endpoint(endpoint);
        }
        if let (Some(id), Some(secret)) = (&self.key_id, &self.secret) {
            builder = builder
                .with_access_key_id(id)
                .with_secret_access_key(secret);
        }
        let s3 = builder.build()?;
        let prefix = object_store::path::Path::from(prefix);
        super::runtime()?.block_on(async {
            let listed: Vec<object_store::ObjectMeta> =
                s3.list(Some(&prefix)).try_collect().await?;
            for meta in listed {
                s3.delete(&meta.location).await?;
            }
            Ok(())
        })
    }
}
