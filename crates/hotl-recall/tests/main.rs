//! Integration tests of recall, by concern: one test binary for the crate.

mod common;
mod contents;
mod incremental;
mod modes;
mod persist;
mod random;
mod ranked;
mod sessions;
mod staleness;
mod tree;

/// Every file in `tests/` is declared above, so none is silently left out of the binary.
#[test]
fn every_test_file_is_listed() -> hotl_testkit::TestResult {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests");
    let main = std::fs::read_to_string(dir.join("main.rs"))?;
    for entry in std::fs::read_dir(&dir)? {
        let name = entry?.file_name().to_string_lossy().into_owned();
        if let Some(module) = name.strip_suffix(".rs")
            && module != "main"
        {
            assert!(
                main.contains(&format!("mod {module};")),
                "tests/{name} is not declared in tests/main.rs"
            );
        }
    }
    Ok(())
}
