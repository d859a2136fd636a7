//! `cargo xtask docs`: the OpenAPI and AsyncAPI documents as self-contained static HTML pages in
//! `target/docs/` (`redocly build-docs --inlineBundle`: the renderer's script is inside the page, so the
//! pages work offline), with an index page linking them.
//!
//! [`check`] is a step of `cargo xtask test`: it opens the pages in headless Chromium and asserts that
//! the endpoints are rendered, that the events page groups its channels by catalogue section (every
//! section a group listing its first event types), and that the page of a channel shows its messages.
//! Redocly prerenders only the page's frame; what the check looks for is rendered by the page's script
//! in the browser, and a page built without `--inlineBundle` (script from a CDN, unreachable here) must
//! fail the check.

use crate::tools::{Tools, output_text, run_with_timeout};
use energy_codegen::Model;
use energy_codegen::emit::{asyncapi, openapi};
use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::process::{Command, ExitCode};
use std::time::Duration;

/// Arguments of `cargo xtask docs`.
#[derive(clap::Args)]
pub(crate) struct DocsArgs {
    /// Also save screenshots of both pages under `docs/` (for the README).
    #[arg(long)]
    screenshots: bool,
}

/// Where the pages go, relative to the workspace root.
const OUT: &str = "target/docs";

/// How long Chromium may take for one page.
const BROWSER_LIMIT: Duration = Duration::from_secs(120);
/// The virtual time a page's scripts get to render, tried in turn until the page shows what it must.
/// The longest twice, each in a fresh Chromium: one CI run (2026-11-27, the machine busy with a
/// background build) left `openapi.html` with one endpoint of four at every budget, and the same page
/// rendered in full when opened again; the cause is not known.
const VIRTUAL_TIME_BUDGETS_MS: [u32; 4] = [5_000, 20_000, 60_000, 60_000];

pub(crate) fn run(args: &DocsArgs) -> ExitCode {
    let root = crate::paths::workspace_root();
    let result = (|| {
        let model = load_model(&root)?;
        let tools = Tools::install(&root)?;
        let out = root.join(OUT);
        build(&root, &model, &tools, &out, true)?;
        eprintln!("docs site written to {}/index.html", out.display());
        if args.screenshots {
            let chromium = find_chromium()?;
            let shots = root.join("docs");
            crate::files::create_dir(&shots)?;
            for page in ["openapi", "asyncapi"] {
                let png = shots.join(format!("{page}.png"));
                screenshot(&chromium, &out.join(format!("{page}.html")), &png, &root)?;
                eprintln!("screenshot saved to {}", png.display());
            }
        }
        Ok::<(), String>(())
    })();
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("error: {e}");
            ExitCode::FAILURE
        }
    }
}

fn load_model(root: &Path) -> Result<Model, String> {
    energy_codegen::build_model(&root.join("schema"))
        .map_err(|f| format!("the schema does not load:\n{}", f.render(false)))
}

/// Renders both documents into `out`, and the index page. `inline` embeds the renderer's script.
fn build(
    root: &Path,
    model: &Model,
    tools: &Tools,
    out: &Path,
    inline: bool,
) -> Result<(), String> {
    crate::files::create_dir(out)?;
    let rest_title = model
        .rest
        .as_ref()
        .map_or_else(|| "REST API".to_owned(), |r| r.title.clone());
    for (document, page, title) in [
        (openapi::PATH, "openapi.html", rest_title.as_str()),
        (asyncapi::PATH, "asyncapi.html", asyncapi::TITLE),
    ] {
        let source = root.join("generated").join(document);
        if !source.is_file() {
            return Err(format!(
                "{} is missing: run `cargo xtask codegen`",
                source.display()
            ));
        }
        let mut redocly = tools.npm_bin("redocly");
        redocly
            .arg("build-docs")
            .arg(&source)
            .arg("--output")
            .arg(out.join(page))
            .args(["--title", title]);
        if inline {
            redocly.arg("--inlineBundle");
        }
        let output = run_with_timeout(redocly, Duration::from_secs(300))?;
        if !output.status.success() {
            return Err(format!(
                "redocly build-docs {document} failed ({}):\n{}",
                output.status,
                output_text(&output)
            ));
        }
    }
    let index = out.join("index.html");
    crate::files::write(&index, &index_html(model, &rest_title))
}

fn index_html(model: &Model, rest_title: &str) -> String {
    let endpoints = model.rest.as_ref().map_or(0, |r| r.endpoints.len());
    let event_types: usize = model.sections.iter().map(|s| s.events.len()).sum();
    format!(
        r#"<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>Energy Supply Platform interface</title>
<style>
body {{ font-family: system-ui, sans-serif; max-width: 44rem; margin: 3rem auto; padding: 0 1rem; line-height: 1.5; color: #222; }}
a {{ color: #0b5cad; }}
li {{ margin: 0.75rem 0; }}
</style>
</head>
<body>
<h1>Energy Supply Platform interface</h1>
<p>Generated from the YAML schemas by <code>cargo xtask codegen</code>, from the same model as the Rust types of the <code>energy-api</code> crate, and rendered by <code>cargo xtask docs</code>.</p>
<ul>
<li><a href="openapi.html">{rest_title}</a>: OpenAPI {oas}, {endpoints} endpoints.</li>
<li><a href="asyncapi.html">{events_title}</a>: AsyncAPI {aas}, {event_types} event types in {versions} payload versions.</li>
</ul>
<p>One JSON Schema (draft 2020-12) per event payload version is in <code>generated/schemas/events/</code>.</p>
</body>
</html>
"#,
        rest_title = escape(rest_title),
        oas = openapi::OPENAPI_VERSION,
        events_title = escape(asyncapi::TITLE),
        aas = asyncapi::ASYNCAPI_VERSION,
        versions = model.version_count(),
    )
}

fn escape(text: &str) -> String {
    text.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
}

/// The docs step of `cargo xtask test`.
pub(crate) fn check(root: &Path) -> Result<(), String> {
    let model = load_model(root)?;
    let tools = Tools::install(root)?;
    let chromium = find_chromium()?;
    let out = root.join(OUT);
    build(root, &model, &tools, &out, true)?;

    let rest_title = model.rest.as_ref().map_or("REST API", |r| r.title.as_str());
    renders(
        &chromium,
        &file_url(&out.join("index.html")),
        root,
        &[rest_title, asyncapi::TITLE],
    )
    .map_err(|e| format!("{e}\n(the index page does not render)"))?;

    let rest_expected = rest_expectations(&model);
    renders(
        &chromium,
        &file_url(&out.join("openapi.html")),
        root,
        &rest_expected,
    )?;
    eprintln!(
        "    ok: openapi.html renders all {} endpoints",
        model.rest.as_ref().map_or(0, |r| r.endpoints.len())
    );

    let events_page = out.join("asyncapi.html");
    let event_expected = event_expectations(&model);
    let dom = renders(&chromium, &file_url(&events_page), root, &event_expected)?;
    eprintln!(
        "    ok: asyncapi.html groups its channels in {} sections",
        model.sections.len()
    );
    for (link, titles) in channel_expectations(&model, &dom)? {
        let url = format!("{}{link}", file_url(&events_page));
        renders(&chromium, &url, root, &titles)?;
        eprintln!("    ok: asyncapi.html{link} shows {}", titles.join(", "));
    }

    // The check must be able to fail: a page whose script cannot load (from the CDN) shows only its frame.
    let canary = root.join("target/docs-canary");
    build(root, &model, &tools, &canary, false)?;
    if renders(
        &chromium,
        &file_url(&canary.join("openapi.html")),
        root,
        &rest_expected,
    )
    .is_ok()
    {
        return Err(
            "a page built without --inlineBundle passed the rendering check, so the check proves nothing"
                .to_owned(),
        );
    }
    eprintln!("    ok: a page without its script fails the same check");
    Ok(())
}

/// Texts the OpenAPI page renders: each endpoint's path (in its tag's list of operations).
fn rest_expectations(model: &Model) -> Vec<String> {
    let Some(rest) = &model.rest else {
        return Vec::new();
    };
    rest.endpoints.iter().map(|e| e.path.clone()).collect()
}

/// Texts the AsyncAPI page renders: each section's title (a group in the navigation and a heading) and
/// the first event type of each section (its group lists its first channels); and the bus: the server's
/// protocol and host variable, and the dead-letter channel's address.
fn event_expectations(model: &Model) -> Vec<String> {
    let mut expected = vec![
        "nats".to_owned(),
        "{nats_host}".to_owned(),
        energy_codegen::emit::bus::dead_letter_address(),
    ];
    for section in &model.sections {
        expected.push(section.title.clone());
        if let Some(first) = section.events.first() {
            expected.push(first.name.clone());
        }
    }
    expected
}

/// Channel pages to open, by their link in the rendered events page (`#/<section>/channels/<key>`, or
/// `…/topics/<key>`), with
/// the message titles each must show (and, for several versions, their compatibility table; and the
/// channel's address and the messages' headers): the first event type with several versions, and the first with a
/// version not labelled `v<N>` (`1.0.0`), among the channels the page links to.
fn channel_expectations(model: &Model, dom: &str) -> Result<Vec<(String, Vec<String>)>, String> {
    // The renderer calls channels "topics" in its links once a channel has a Kafka binding.
    let link_of = |e: &energy_codegen::EventType| {
        ["channels", "topics"].iter().find_map(|kind| {
            let tail = format!(
                "/{kind}/{}\"",
                asyncapi::channel_key(e).to_ascii_lowercase()
            );
            let end = dom.find(&tail)? + tail.len() - 1;
            let start = dom[..end].rfind("href=\"")? + "href=\"".len();
            Some(dom[start..end].to_owned())
        })
    };
    let events = || model.sections.iter().flat_map(|s| &s.events);
    let several = events().find_map(|e| Some((e, link_of(e)?)).filter(|_| e.versions.len() > 1));
    let odd = events().find_map(|e| {
        let odd = e.versions.iter().any(|v| !v.label.starts_with('v'));
        Some((e, link_of(e)?)).filter(|_| odd)
    });
    let Some(several) = several else {
        return Err(
            "asyncapi.html links to no channel of an event type with several versions".to_owned(),
        );
    };
    Ok([Some(several), odd]
        .into_iter()
        .flatten()
        .map(|(e, link)| {
            let mut titles: Vec<String> = e
                .versions
                .iter()
                .map(|v| format!("{} {}", e.name, v.label))
                .collect();
            if e.versions.len() > 1 {
                // The compatibility table of its messages, rendered as a table.
                titles.push("a reader of the older version, given the newer".to_owned());
            }
            // Its subject on the bus, and the CloudEvents headers of its messages.
            titles.push(energy_codegen::emit::bus::event_address(&e.name));
            titles.push("ce-dataversion".to_owned());
            (link, titles)
        })
        .collect())
}

fn missing_from(
    rendered: &BTreeSet<String>,
    expected: &[impl AsRef<str>],
    page: &str,
) -> Result<(), String> {
    let missing: Vec<&str> = expected
        .iter()
        .map(AsRef::as_ref)
        .filter(|t| !rendered.contains(*t))
        .collect();
    if missing.is_empty() {
        Ok(())
    } else {
        Err(format!(
            "{page} in headless Chromium does not show {} of {} expected texts: {}",
            missing.len(),
            expected.len(),
            missing.join(", ")
        ))
    }
}

/// Chromium: `$CHROMIUM`, else `chromium` on `PATH`, else Debian's package installed now (as root or
/// with passwordless sudo), as the validators are installed on first use.
fn find_chromium() -> Result<PathBuf, String> {
    if let Some(path) = std::env::var_os("CHROMIUM") {
        return Ok(PathBuf::from(path));
    }
    if let Some(found) = chromium_on_path() {
        return Ok(found);
    }
    crate::tools::install_debian_package(
        "chromium",
        "checking the docs pages in headless Chromium",
    )
    .map_err(|e| format!("{e}, or set CHROMIUM to a Chromium executable"))?;
    chromium_on_path().ok_or_else(|| {
        "`apt-get install chromium` succeeded, but no `chromium` is on PATH: set CHROMIUM to the \
         Chromium executable"
            .to_owned()
    })
}

fn chromium_on_path() -> Option<PathBuf> {
    let path = std::env::var_os("PATH").unwrap_or_default();
    std::env::split_paths(&path)
        .flat_map(|dir| ["chromium", "chromium-browser"].map(|name| dir.join(name)))
        .find(|candidate| candidate.is_file())
}

/// Whether the page at `url` shows every text of `expected` once its scripts ran; gives its DOM. A page
/// is given more virtual time when it falls short: on a loaded machine the renderers (Redoc renders
/// operations after the first ones) can need more than the first budget, and a page that renders late
/// still renders.
fn renders(
    chromium: &Path,
    url: &str,
    root: &Path,
    expected: &[impl AsRef<str>],
) -> Result<String, String> {
    let name = url.rsplit('/').next().unwrap_or(url).to_owned();
    let mut result = Err(String::new());
    for (attempt, budget_ms) in VIRTUAL_TIME_BUDGETS_MS.into_iter().enumerate() {
        if attempt > 0 {
            eprintln!("    note: {name} incomplete; again with {budget_ms} ms of virtual time");
        }
        let dom = dump_dom(chromium, url, root, budget_ms)?;
        result = missing_from(&rendered_texts(&dom), expected, &name)
            .map(|()| dom)
            .map_err(|e| format!("{e} (after {budget_ms} ms of virtual time)"));
        if result.is_ok() {
            break;
        }
    }
    result
}

/// A headless Chromium command with a fresh profile, on a closed network, that waits `budget_ms` of
/// virtual time for the page's scripts.
fn chromium_command(chromium: &Path, profile: &Path, budget_ms: u32) -> Command {
    let mut command = Command::new(chromium);
    command
        .args([
            "--headless",
            "--no-sandbox",
            "--disable-gpu",
            "--disable-background-networking",
            "--disable-component-update",
            "--disable-sync",
            "--disable-quic",
            "--no-first-run",
        ])
        .arg(format!("--virtual-time-budget={budget_ms}"))
        .arg(format!("--user-data-dir={}", profile.display()));
    command
}

fn profile_dir(root: &Path) -> Result<PathBuf, String> {
    let dir = root
        .join("target/tmp")
        .join(format!("chromium-profile-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    crate::files::create_dir(&dir)?;
    Ok(dir)
}

fn file_url(path: &Path) -> String {
    format!("file://{}", path.display()).replace(' ', "%20")
}

/// The page's DOM after its scripts ran, in a window tall enough to render several sections.
fn dump_dom(chromium: &Path, url: &str, root: &Path, budget_ms: u32) -> Result<String, String> {
    let profile = profile_dir(root)?;
    let mut command = chromium_command(chromium, &profile, budget_ms);
    command
        .args(["--window-size=1400,12000", "--dump-dom"])
        .arg(url);
    let output = run_with_timeout(command, BROWSER_LIMIT);
    let _ = std::fs::remove_dir_all(&profile);
    let output = output?;
    if !output.status.success() || output.stdout.is_empty() {
        return Err(format!(
            "Chromium could not open {url} ({}):\n{}",
            output.status,
            output_text(&output)
        ));
    }
    Ok(String::from_utf8_lossy(&output.stdout).into_owned())
}

fn screenshot(chromium: &Path, page: &Path, png: &Path, root: &Path) -> Result<(), String> {
    let profile = profile_dir(root)?;
    let mut command = chromium_command(chromium, &profile, VIRTUAL_TIME_BUDGETS_MS[1]);
    command
        .args(["--window-size=1400,900", "--hide-scrollbars"])
        .arg(format!("--screenshot={}", png.display()))
        .arg(file_url(page));
    let output = run_with_timeout(command, BROWSER_LIMIT);
    let _ = std::fs::remove_dir_all(&profile);
    let output = output?;
    if !output.status.success() || !png.is_file() {
        return Err(format!(
            "Chromium could not take a screenshot of {}:\n{}",
            page.display(),
            output_text(&output)
        ));
    }
    Ok(())
}

/// The text nodes of a serialised DOM, trimmed, outside `<script>` and `<style>` (a page's script holds
/// the whole document as data, which must not count as rendered).
fn rendered_texts(dom: &str) -> BTreeSet<String> {
    let mut texts = BTreeSet::new();
    let mut rest = dom;
    while let Some(open) = rest.find('<') {
        push_text(&mut texts, &rest[..open]);
        rest = &rest[open..];
        let lower: String = rest
            .chars()
            .take(7)
            .collect::<String>()
            .to_ascii_lowercase();
        let skip_to = if lower.starts_with("<script") {
            Some("</script>")
        } else if lower.starts_with("<style") {
            Some("</style>")
        } else if lower.starts_with("<!--") {
            Some("-->")
        } else {
            None
        };
        let end = match skip_to {
            Some(close) => rest.find(close).map(|i| i + close.len()),
            None => rest.find('>').map(|i| i + 1),
        };
        match end {
            Some(end) => rest = &rest[end..],
            None => return texts,
        }
    }
    push_text(&mut texts, rest);
    texts
}

fn push_text(texts: &mut BTreeSet<String>, raw: &str) {
    let text = raw.trim();
    if text.is_empty() {
        return;
    }
    let unescaped = text
        .replace("&lt;", "<")
        .replace("&gt;", ">")
        .replace("&quot;", "\"")
        .replace("&#39;", "'")
        .replace("&#x27;", "'")
        .replace("&nbsp;", "\u{a0}")
        .replace("&amp;", "&");
    texts.insert(unescaped);
}

#[cfg(test)]
mod tests {
    use super::rendered_texts;

    #[test]
    fn only_text_outside_scripts_counts_as_rendered() {
        let dom = r#"<html><head><style>a{content:"x"}</style></head><body><div>get</div><span> /v1/a/{b}/ </span><!-- -->
            <script>const d = {"paths": "/v1/hidden/"}; "<div>fake</div>"</script><p>a &amp; b &lt;c&gt;</p></body></html>"#;
        let texts = rendered_texts(dom);
        let expected: Vec<&str> = vec!["/v1/a/{b}/", "a & b <c>", "get"];
        assert_eq!(
            texts.iter().map(String::as_str).collect::<Vec<_>>(),
            expected
        );
    }
}
