//! A sealed store: nothing readable leaves, names say nothing of content, and the key
//! opens it all again.

use hotl_log::Body;
use hotl_remote::Keys;

use crate::support::{Cloud, TestResult};

#[tokio::test]
async fn nothing_published_is_readable_and_names_hold_only_ids_and_keyed_hashes() -> TestResult {
    let cloud = Cloud::new();
    let keys = Keys::derive(&[7; 32]);
    let a = cloud.machine("laptop", 60, Some(keys.clone()));
    let secret_blob = a.store.blobs().put(b"blob text nobody should read")?;
    let mut writer = a.store.create(
        hotl_log::SessionStart::new("/home/ann/secret-project"),
        1,
        vec![],
    )?;
    writer.append(Body::user_text("the launch code is swordfish"))?;
    writer.append(Body::ToolResult {
        call: "c".into(),
        content: vec![],
        blob: Some(secret_blob.clone()),
        is_error: false,
        files: vec![],
    })?;
    let id = writer.id().to_owned();
    drop(writer);
    let mut lease = a.remote.acquire(&id).await?;
    a.remote.publish(&mut lease).await?;
    let names = cloud.names().await;
    assert!(names.len() >= 4, "{names:?}");
    for name in &names {
        assert!(!name.contains(&secret_blob), "{name}");
        if name.ends_with("hotl-remote.json") {
            continue;
        }
        let bytes = cloud.read(name).await;
        let text = String::from_utf8_lossy(&bytes);
        for plain in [
            "swordfish",
            "secret-project",
            "nobody should read",
            "laptop",
            "hotl-",
        ] {
            assert!(!text.contains(plain), "{name} shows {plain:?}");
        }
    }
    let b = cloud.machine("box", 60, Some(Keys::derive(&[7; 32])));
    b.remote.pull(&id).await?;
    assert_eq!(a.log(&id), b.log(&id));
    assert_eq!(
        b.store.blobs().get(&secret_blob)?,
        b"blob text nobody should read"
    );
    let (trees, _) = b.remote.list_trees().await?;
    assert_eq!(
        trees[0].root_meta().map(|m| m.cwd.as_str()),
        Some("/home/ann/secret-project")
    );
    Ok(())
}
