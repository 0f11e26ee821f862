//! Exported pages and the share viewer in a real browser (headless Chromium, with every name
//! but 127.0.0.1 unresolvable so nothing leaves the machine): the page renders offline under
//! its own policy, hostile text stays inert, folds open to their archived items, children open
//! in stacked overlays, search reaches archived spans and children, deep links land, and the
//! viewer decrypts in the browser or says it cannot.
//!
//! Needs `chromium`: `.ci/run` installs it and sets HOTL_BROWSER_TESTS=1, under which a missing
//! browser fails these tests instead of skipping them.

use std::path::{Path, PathBuf};
use std::process::Command;

use hotl_testkit::TestResult;
use hotl_view::Item;

use crate::common::Env;
use crate::export::{CHILD, GRANDCHILD, rich};
use crate::share::{ShareServer, http};

/// The browser, or `None` to skip (said on stderr) when it is missing and not required.
fn chromium() -> TestResult<Option<PathBuf>> {
    let found = ["chromium", "chromium-browser", "google-chrome"]
        .iter()
        .find_map(|name| {
            std::env::var_os("PATH").and_then(|path| {
                std::env::split_paths(&path)
                    .map(|dir| dir.join(name))
                    .find(|p| p.is_file())
            })
        });
    if found.is_some() {
        return Ok(found);
    }
    let required = std::env::var("HOTL_BROWSER_TESTS").is_ok_and(|v| v == "1");
    if required {
        return Err("HOTL_BROWSER_TESTS=1 but no chromium is installed".into());
    }
    hotl_testkit::require("chromium", false)?;
    Ok(None)
}

/// Loads `url` headless and returns (the DOM after scripts ran, the browser's log).
fn dump_dom(browser: &Path, env: &Env, url: &str, extra: &[&str]) -> TestResult<(String, String)> {
    let profile = tempfile::tempdir_in(env.root())?;
    let out = Command::new(browser)
        .args([
            "--headless",
            "--no-sandbox",
            "--disable-gpu",
            "--no-first-run",
            "--disable-background-networking",
            "--host-resolver-rules=MAP * ~NOTFOUND , EXCLUDE 127.0.0.1",
            "--virtual-time-budget=10000",
            "--enable-logging=stderr",
            "--v=0",
        ])
        .arg(format!("--user-data-dir={}", profile.path().display()))
        .args(extra)
        .arg("--dump-dom")
        .arg(url)
        .output()?;
    Ok((
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    ))
}

/// Writes a copy of `page` without its policy and with `script` run after the page's own.
fn with_selftest(page: &str, script: &str) -> TestResult<String> {
    let start = page
        .find("<meta http-equiv=\"Content-Security-Policy\"")
        .ok_or("no policy")?;
    let end = start + page[start..].find('>').ok_or("unclosed meta")? + 1;
    let mut copy = format!("{}{}", &page[..start], &page[end..]);
    let body_end = copy.rfind("</body>").ok_or("no body end")?;
    copy.insert_str(body_end, &format!("<script>{script}</script>"));
    Ok(copy)
}

/// The JSON a selftest wrote into `<pre id="selftest">`.
fn selftest_result(dom: &str) -> TestResult<serde_json::Value> {
    let start = dom.find("<pre id=\"selftest\">").ok_or_else(|| {
        format!(
            "the selftest wrote nothing:\n{}",
            &dom[dom.len().saturating_sub(3000)..]
        )
    })? + "<pre id=\"selftest\">".len();
    let end = start + dom[start..].find("</pre>").ok_or("unclosed")?;
    let text = dom[start..end]
        .replace("&quot;", "\"")
        .replace("&lt;", "<")
        .replace("&gt;", ">")
        .replace("&amp;", "&");
    Ok(serde_json::from_str(&text)?)
}

const SELFTEST: &str = r##"
(async function () {
  const out = {};
  const wait = (ms) => new Promise((r) => setTimeout(r, ms));
  out.pwned = typeof window.__pwned;
  document.querySelectorAll("#main .fold > .archived, #main .compaction > .archived").forEach((d) => { d.open = true; });
  out.archived = Array.from(document.querySelectorAll("#main .fold > .archived > .item")).length;
  const overlay = document.getElementById("overlay");
  const crumbs = () => document.querySelector("#overlay .crumbs").textContent;
  document.querySelector("#main .chip").click();
  out.open1 = overlay.classList.contains("open");
  out.crumbs1 = crumbs();
  out.childItems = document.querySelectorAll("#overlay .view > section .item.user, #overlay .view > section .item.assistant").length;
  document.querySelector("#overlay .view .chip").click();
  out.crumbs2 = crumbs();
  out.grandchildItems = document.querySelectorAll("#overlay .view > section .item.user, #overlay .view > section .item.assistant").length;
  document.dispatchEvent(new KeyboardEvent("keydown", { key: "Escape", bubbles: true }));
  out.crumbs3 = crumbs();
  document.dispatchEvent(new KeyboardEvent("keydown", { key: "Escape", bubbles: true }));
  out.closed = !overlay.classList.contains("open");
  out.searchArchived = await window.hotlSearch("ARCHIVED-TOKEN-ALPHA");
  out.whereArchived = Array.from(document.querySelectorAll("#results .where")).slice(1).map((e) => e.textContent);
  out.snippetArchived = (document.querySelectorAll("#results button")[0] || {}).textContent || "";
  out.searchNote = await window.hotlSearch("README has 30 lines");
  out.searchChild = await window.hotlSearch("GRANDCHILD-TOKEN-GAMMA");
  out.whereChild = Array.from(document.querySelectorAll("#results .where")).slice(1).map((e) => e.textContent);
  out.searchNothing = await window.hotlSearch("NO-SUCH-TOKEN-ANYWHERE");
  out.searchTail = await window.hotlSearch("TAIL-TOKEN-EPSILON");
  const tail = Array.from(document.querySelectorAll("details.more[data-rest]"))
    .find((d) => d.textContent.indexOf("390 more lines") >= 0);
  tail.open = true;
  await wait(200);
  out.tailShown = tail.textContent.indexOf("TAIL-TOKEN-EPSILON") >= 0;
  await window.hotlSearch("GRANDCHILD-TOKEN-GAMMA");
  document.querySelectorAll("#results button")[0].click();
  out.revealed = overlay.classList.contains("open") && crumbs().indexOf("kid2") >= 0;
  let stored = -1;
  try { stored = localStorage.length + sessionStorage.length; } catch (e) { stored = 0; }
  out.stored = stored;
  out.rendered = document.documentElement.getAttribute("data-rendered-ms");
  const pre = document.createElement("pre");
  pre.id = "selftest";
  pre.textContent = JSON.stringify(out);
  document.body.appendChild(pre);
})();
"##;

/// Items of a view a page shows as `.item.user` or `.item.assistant` (results go in cards).
fn messages(items: &[Item]) -> usize {
    items
        .iter()
        .filter(|i| matches!(i, Item::User { .. } | Item::Assistant { .. }))
        .count()
}

fn view_of(env: &Env, id: &str) -> TestResult<hotl_view::View> {
    let records = hotl_log::Store::new(&env.home).read(id)?.records;
    Ok(hotl_view::project(&records, 0))
}

#[test]
fn the_page_renders_offline_under_its_own_policy() -> TestResult {
    let Some(browser) = chromium()? else {
        return Ok(());
    };
    let env = Env::new()?;
    let rich = rich(&env)?;
    let out = env
        .run(&["sessions", "export", &rich.root, "-o", "page.html"])
        .ok();
    let (dom, log) = dump_dom(&browser, &env, &format!("file://{}", out.line()), &[])?;
    assert!(
        dom.contains("data-rendered-ms="),
        "the page script ran under the policy"
    );
    assert!(dom.contains("A rich session"), "the header");
    assert!(dom.contains("second task: hand part of it off"));
    assert!(dom.contains("id=\"t3\""), "stamps are anchors");
    assert!(dom.contains("$ cat README.md"));
    for bad in ["Uncaught", "Refused to", "Content Security Policy"] {
        assert!(!log.contains(bad), "{bad} in the browser's log:\n{log}");
    }
    Ok(())
}

#[test]
fn the_page_behaves_as_a_reader_expects() -> TestResult {
    let Some(browser) = chromium()? else {
        return Ok(());
    };
    let env = Env::new()?;
    let rich = rich(&env)?;
    let out = env
        .run(&["sessions", "export", &rich.root, "-o", "page.html"])
        .ok();
    let page = std::fs::read_to_string(out.line())?;
    let copy = env.root().join("selftest.html");
    std::fs::write(&copy, with_selftest(&page, SELFTEST)?)?;
    let (dom, log) = dump_dom(&browser, &env, &format!("file://{}", copy.display()), &[])?;
    let result = selftest_result(&dom).map_err(|e| format!("{e}\n{log}"))?;

    // Hostile text stayed text.
    assert_eq!(result["pwned"], "undefined");
    // The fold opens to its archived items, as many as the view holds.
    let view = view_of(&env, &rich.root)?;
    let folded: usize = view
        .items
        .iter()
        .map(|i| match i {
            Item::Folded { items, .. } => messages(items),
            _ => 0,
        })
        .sum();
    assert_eq!(result["archived"], folded);
    // The child, then its child, in stacked overlays; Esc goes back one at a time.
    assert_eq!(result["open1"], true);
    assert_eq!(result["crumbs1"], "main›kid1×");
    assert_eq!(result["childItems"], messages(&view_of(&env, CHILD)?.items));
    assert_eq!(result["crumbs2"], "main›kid1›kid2×");
    assert_eq!(
        result["grandchildItems"],
        messages(&view_of(&env, GRANDCHILD)?.items)
    );
    assert_eq!(result["crumbs3"], "main›kid1×");
    assert_eq!(result["closed"], true);
    // Search reaches archived spans and children, and says where each hit is.
    assert_eq!(result["searchArchived"], 1);
    assert!(
        result["whereArchived"][0]
            .as_str()
            .unwrap_or("")
            .contains("main · archived"),
        "{result}"
    );
    // A fold's note is searched too; a snippet keeps its case and the spaces between words.
    assert_eq!(result["searchNote"], 1, "{result}");
    assert!(
        result["snippetArchived"]
            .as_str()
            .unwrap_or("")
            .contains("First task done: ARCHIVED-TOKEN-ALPHA"),
        "{result}"
    );
    assert_eq!(result["searchChild"], 1);
    assert!(
        result["whereChild"][0]
            .as_str()
            .unwrap_or("")
            .starts_with("kid2"),
        "{result}"
    );
    assert_eq!(result["searchNothing"], 0);
    // A long output's rest is searched before it is opened, and shown when it is.
    assert_eq!(result["searchTail"], 1);
    assert_eq!(result["tailShown"], true);
    assert_eq!(
        result["revealed"], true,
        "a hit in a grandchild opens its overlay"
    );
    assert_eq!(result["stored"], 0, "nothing kept in browser storage");
    Ok(())
}

#[test]
fn a_deep_link_lands_on_its_stamp_even_inside_a_fold() -> TestResult {
    let Some(browser) = chromium()? else {
        return Ok(());
    };
    let env = Env::new()?;
    let rich = rich(&env)?;
    let out = env
        .run(&["sessions", "export", &rich.root, "-o", "page.html"])
        .ok();
    let (dom, _) = dump_dom(&browser, &env, &format!("file://{}#t5", out.line()), &[])?;
    // t5 is the result of the first call, archived in the fold: its fold opened, its card too.
    assert!(
        dom.contains("<details class=\"archived\" open=\"\">"),
        "the fold opened"
    );
    let target = dom
        .find(" target\"")
        .ok_or("nothing marked as the target")?;
    let around = &dom[target.saturating_sub(400)..(target + 400).min(dom.len())];
    assert!(
        around.contains("readme line") || around.contains("cat README.md"),
        "{around}"
    );
    Ok(())
}

#[test]
fn the_viewer_decrypts_in_the_browser_or_says_it_cannot() -> TestResult {
    let Some(browser) = chromium()? else {
        return Ok(());
    };
    let env = Env::new()?;
    let rich = rich(&env)?;
    let server = ShareServer::start(&env, &[])?;
    let out = env
        .run(&["sessions", "share", &rich.root, "--server", &server.url])
        .ok();
    let link = out.line().to_owned();
    let (dom, log) = dump_dom(&browser, &env, &link, &[])?;
    assert!(
        dom.contains("data-rendered-ms="),
        "decrypted and shown:\n{log}"
    );
    assert!(dom.contains("second task: hand part of it off"));
    assert!(
        dom.contains("GRANDCHILD-TOKEN-GAMMA"),
        "children came along"
    );
    assert!(!dom.contains("class=\"fail\""));
    // A wrong key, and a blob changed by one bit: a message, never a blank page.
    let (base, key) = link.split_once('#').ok_or("no key")?;
    let mut wrong = key.as_bytes().to_vec();
    wrong[0] = if wrong[0] == b'A' { b'B' } else { b'A' };
    let (dom, _) = dump_dom(
        &browser,
        &env,
        &format!("{base}#{}", String::from_utf8(wrong)?),
        &[],
    )?;
    assert!(
        dom.contains("<div id=\"status\" class=\"fail\">cannot decrypt"),
        "{dom}"
    );
    let id = base.rsplit('/').next().ok_or("no id")?;
    let (_, _, mut sealed) = http(&server.url, "GET", &format!("/s/{id}/raw"), None, b"")?;
    let last = sealed.len() - 1;
    sealed[last] ^= 1;
    let (_, _, body) = http(
        &server.url,
        "POST",
        "/s",
        Some("application/octet-stream"),
        &sealed,
    )?;
    let flipped: serde_json::Value = serde_json::from_slice(&body)?;
    let flipped = flipped["id"].as_str().ok_or("no id")?;
    let (dom, _) = dump_dom(
        &browser,
        &env,
        &format!("{}/s/{flipped}#{key}", server.url),
        &[],
    )?;
    assert!(
        dom.contains("<div id=\"status\" class=\"fail\">cannot decrypt"),
        "{dom}"
    );
    // A fixed vector sealed in Rust opens in the browser.
    let doc = serde_json::json!({
        "format": "hotl-export/1", "exported_at": "", "hotl": "", "session": {"id": "x"},
        "log": "", "html": "<main id=\"main\"><div class=\"item\">VECTOR-OPENED-IN-BROWSER</div></main>"
    });
    let sealed = hotl_export::seal::seal_with(&serde_json::to_vec(&doc)?, &[42u8; 32], &[7u8; 12])?;
    let (_, _, body) = http(
        &server.url,
        "POST",
        "/s",
        Some("application/octet-stream"),
        &sealed.bytes,
    )?;
    let vector: serde_json::Value = serde_json::from_slice(&body)?;
    let vector = vector["id"].as_str().ok_or("no id")?;
    let (dom, _) = dump_dom(
        &browser,
        &env,
        &format!("{}/s/{vector}#{}", server.url, sealed.key),
        &[],
    )?;
    assert!(dom.contains("VECTOR-OPENED-IN-BROWSER"), "{dom}");
    // What the server saw holds no key.
    let seen = server.everything_seen()?;
    assert!(
        !String::from_utf8_lossy(&seen).contains(key),
        "the key reached the server"
    );
    Ok(())
}

#[test]
fn screenshots_of_the_page_light_and_dark() -> TestResult {
    let Some(browser) = chromium()? else {
        return Ok(());
    };
    let env = Env::new()?;
    let rich = rich(&env)?;
    let out = env
        .run(&["sessions", "export", &rich.root, "-o", "page.html"])
        .ok();
    let page = std::fs::read_to_string(out.line())?;
    let dark = env.root().join("dark.html");
    std::fs::write(
        &dark,
        page.replacen("data-theme=\"auto\"", "data-theme=\"dark\"", 1),
    )?;
    let shots = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("export-screenshots");
    std::fs::create_dir_all(&shots)?;
    for (name, file) in [("light", PathBuf::from(out.line())), ("dark", dark)] {
        let png = shots.join(format!("export-{name}.png"));
        let _ = std::fs::remove_file(&png);
        let profile = tempfile::tempdir_in(env.root())?;
        let status = Command::new(&browser)
            .args([
                "--headless",
                "--no-sandbox",
                "--disable-gpu",
                "--hide-scrollbars",
                "--host-resolver-rules=MAP * ~NOTFOUND , EXCLUDE 127.0.0.1",
                "--window-size=1280,1400",
                "--virtual-time-budget=5000",
            ])
            .arg(format!("--user-data-dir={}", profile.path().display()))
            .arg(format!("--screenshot={}", png.display()))
            .arg(format!("file://{}", file.display()))
            .output()?;
        assert!(
            status.status.success(),
            "{}",
            String::from_utf8_lossy(&status.stderr)
        );
        let bytes = std::fs::read(&png)?;
        assert!(bytes.starts_with(b"\x89PNG"), "{name} is a PNG");
        assert!(bytes.len() > 10_000, "{name} shows something");
    }
    Ok(())
}

/// A loopback stand-in for the GitHub gists API: answers every GET with `body` as JSON, open to
/// any origin (as the real API is), and counts what it was asked.
fn fake_gist_api(
    body: String,
) -> TestResult<(String, std::sync::Arc<std::sync::Mutex<Vec<String>>>)> {
    use std::io::{BufRead, BufReader, Write};
    let listener = std::net::TcpListener::bind("127.0.0.1:0")?;
    let url = format!("http://{}/gists", listener.local_addr()?);
    let asked = std::sync::Arc::new(std::sync::Mutex::new(Vec::new()));
    let seen = asked.clone();
    std::thread::spawn(move || {
        for stream in listener.incoming().flatten() {
            let mut reader = BufReader::new(match stream.try_clone() {
                Ok(s) => s,
                Err(_) => continue,
            });
            let mut line = String::new();
            let _ = reader.read_line(&mut line);
            // The rest of the request's head.
            let mut header = String::new();
            while reader.read_line(&mut header).is_ok_and(|n| n > 2) {
                header.clear();
            }
            if let Ok(mut all) = seen.lock() {
                all.push(line.trim().to_owned());
            }
            let mut stream = stream;
            let _ = write!(
                stream,
                "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nAccess-Control-Allow-Origin: *\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{}",
                body.len(),
                body
            );
        }
    });
    Ok((url, asked))
}

#[test]
fn the_viewer_opens_a_gist_share_by_its_hex_id() -> TestResult {
    let Some(browser) = chromium()? else {
        return Ok(());
    };
    use base64::Engine as _;
    let env = Env::new()?;
    let doc = serde_json::json!({
        "format": "hotl-export/1", "exported_at": "", "hotl": "", "session": {"id": "x"},
        "log": "", "html": "<main id=\"main\"><div class=\"item\">OPENED-FROM-A-GIST</div></main>"
    });
    let sealed = hotl_export::seal::seal(&serde_json::to_vec(&doc)?)?;
    let gist = serde_json::json!({
        "files": {"session.hotlshare.txt": {
            "content": base64::engine::general_purpose::STANDARD.encode(&sealed.bytes)
        }}
    });
    let (api, asked) = fake_gist_api(gist.to_string())?;
    let server = ShareServer::start(&env, &["--gist-api", &api])?;
    let id = "0123456789abcdef0123456789abcdef";
    let (dom, log) = dump_dom(
        &browser,
        &env,
        &format!("{}/s/{id}#{}", server.url, sealed.key),
        &[],
    )?;
    assert!(dom.contains("OPENED-FROM-A-GIST"), "{dom}\n{log}");
    let asked = asked.lock().map_err(|_| "poisoned")?.clone();
    assert_eq!(asked, [format!("GET /gists/{id} HTTP/1.1")]);
    Ok(())
}

#[test]
fn a_crafted_share_cannot_navigate_submit_or_run_in_the_viewer() -> TestResult {
    let Some(browser) = chromium()? else {
        return Ok(());
    };
    let env = Env::new()?;
    let server = ShareServer::start(&env, &[])?;
    let html = concat!(
        "<meta http-equiv=\"refresh\" content=\"0;url=http://127.0.0.1:9/phish\">",
        "<base href=\"http://127.0.0.1:9/\">",
        "<main id=\"main\"><div class=\"item\" onclick=\"alert(1)\">CRAFTED-STAYS-HERE</div>",
        "<form action=\"http://127.0.0.1:9/steal\"><input name=\"q\" value=\"FORM-FIELD\"></form>",
        "<iframe src=\"http://127.0.0.1:9/frame\"></iframe>",
        "<a href=\"javascript:alert(2)\">JS-LINK</a><a href=\"#t1\">OWN-LINK</a>",
        "<img src=\"x\" onerror=\"alert(3)\"><svg><a href=\"javascript:alert(4)\">SVG</a></svg>",
        "<marquee>UNWRAPPED-TEXT</marquee><!-- a comment -->",
        "<details open><summary>KEPT-SUMMARY</summary>kept</details></main>"
    );
    let doc = serde_json::json!({
        "format": "hotl-export/1", "exported_at": "", "hotl": "", "session": {"id": "x"},
        "log": "", "html": html
    });
    let sealed = hotl_export::seal::seal_with(&serde_json::to_vec(&doc)?, &[9u8; 32], &[3u8; 12])?;
    let (_, _, body) = http(
        &server.url,
        "POST",
        "/s",
        Some("application/octet-stream"),
        &sealed.bytes,
    )?;
    let id: serde_json::Value = serde_json::from_slice(&body)?;
    let id = id["id"].as_str().ok_or("no id")?;
    let (dom, log) = dump_dom(
        &browser,
        &env,
        &format!("{}/s/{id}#{}", server.url, sealed.key),
        &[],
    )?;
    // Still the viewer, showing the share: nothing navigated it away.
    assert!(dom.contains("CRAFTED-STAYS-HERE"), "{dom}\n{log}");
    assert!(
        dom.contains("KEPT-SUMMARY") && dom.contains("OWN-LINK"),
        "{dom}"
    );
    assert!(
        dom.contains("UNWRAPPED-TEXT") && !dom.contains("<marquee"),
        "{dom}"
    );
    let app = &dom[dom.find("id=\"app\"").ok_or("no app")?..];
    for gone in [
        "http-equiv",
        "<base",
        "<form",
        "<iframe",
        "<svg",
        "javascript:",
        "onclick",
        "onerror",
        "127.0.0.1:9",
        "<!--",
    ] {
        assert!(!app.contains(gone), "{gone} reached the DOM: {app}");
    }
    assert!(
        !app.contains("FORM-FIELD"),
        "a form goes with what it holds: {app}"
    );
    Ok(())
}
