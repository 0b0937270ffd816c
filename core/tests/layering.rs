//! The floor plan of `core/src`, checked from the code's own `crate::` paths (ARCHITECTURE.md states the rules as
//! "Architecture invariant:" lines). Every path in code (comments are skipped) is read as the room it names:
//!
//! - the base: `math`, `error`, `limits`, `arena`;
//! - `data` (skeleton, skin, curve, clip, asset), which imports only the base;
//! - `stages`, which never import `motion` or `character`;
//! - `motion`, which never imports `character`;
//! - `character`, above everything.
//!
//! Nothing imports through the crate root (`crate::Error`, or `crate::sampling`, a public path `lib.rs`
//! re-exports): a name is imported from the module that defines it. Between the modules of one room (the
//! base's modules, `data::clip`, `stages::ik`, …) imports form no circle.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

/// The rooms, bottom first, with the top-level modules each holds.
const ROOMS: &[(&str, &[&str])] = &[
    ("base", &["math", "error", "limits", "arena"]),
    ("data", &["data"]),
    ("stages", &["stages"]),
    ("motion", &["motion"]),
    ("character", &["character"]),
];

/// Which rooms a room may not import (besides any room above it).
const FORBIDDEN: &[(&str, &[&str])] = &[("stages", &["motion", "character"]), ("motion", &["character"])];

/// A module as the checker names it: the room and the module inside it (`data::clip`, `math`, `stages::ik`).
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord)]
struct Module {
    room: usize,
    name: String,
}

#[derive(Debug, Default)]
struct Report {
    violations: Vec<String>,
    edges: BTreeSet<(String, String)>,
    cycles: Vec<Vec<String>>,
}

/// The module a file under `src` belongs to, from its path (`stages/ik/batch.rs` is `stages::ik`); `None` for
/// `lib.rs`, which only declares and re-exports.
fn module_of_file(relative: &Path) -> Option<Module> {
    let parts: Vec<String> = relative
        .components()
        .map(|c| c.as_os_str().to_string_lossy().trim_end_matches(".rs").to_string())
        .filter(|p| p != "mod")
        .collect();
    if parts.first().is_some_and(|p| p == "lib") {
        return None;
    }
    module_of_path(&parts)
}

/// The module a path's segments name, or `None` when its first segment is not a room's module.
fn module_of_path(segments: &[String]) -> Option<Module> {
    let first = segments.first()?;
    let room = ROOMS.iter().position(|(_, modules)| modules.contains(&first.as_str()))?;
    let grouped = ROOMS[room].0 != "base" && ROOMS[room].0 != "character";
    let name = match (grouped, segments.get(1)) {
        (true, Some(second)) => format!("{first}::{second}"),
        _ => first.clone(),
    };
    Some(Module { room, name })
}

/// The source with `//` comments and string literals blanked, so doc links and messages are not read as paths.
fn code_only(source: &str) -> String {
    let mut out = String::with_capacity(source.len());
    for line in source.lines() {
        let mut in_string = false;
        let mut previous = ' ';
        let mut kept = String::new();
        let chars: Vec<char> = line.chars().collect();
        let mut i = 0;
        while i < chars.len() {
            let c = chars[i];
            if !in_string && c == '/' && chars.get(i + 1) == Some(&'/') {
                break;
            }
            if c == '"' && previous != '\\' {
                in_string = !in_string;
            }
            kept.push(if in_string { ' ' } else { c });
            previous = c;
            i += 1;
        }
        out.push_str(&kept);
        out.push('\n');
    }
    out
}

/// Every `crate::` path in `code`, as its leading segments; a `crate::{a::b, c}` group gives one path per item.
fn crate_paths(code: &str) -> Vec<Vec<String>> {
    let mut paths = vec![];
    let mut rest = code;
    while let Some(at) = rest.find("crate::") {
        let preceded_by_ident =
            rest[..at].chars().next_back().is_some_and(|c| c.is_alphanumeric() || c == '_' || c == ':');
        rest = &rest[at + "crate::".len()..];
        if preceded_by_ident {
            continue;
        }
        if let Some(group) = rest.strip_prefix('{') {
            let end = matching_brace(group);
            for item in split_top_level(&group[..end]) {
                paths.push(segments(item));
            }
        } else {
            paths.push(segments(rest));
        }
    }
    paths
}

/// The byte offset of the `}` closing a group whose `{` was just consumed.
fn matching_brace(group: &str) -> usize {
    let mut depth = 0;
    for (i, c) in group.char_indices() {
        match c {
            '{' => depth += 1,
            '}' if depth == 0 => return i,
            '}' => depth -= 1,
            _ => {}
        }
    }
    group.len()
}

fn split_top_level(group: &str) -> Vec<&str> {
    let (mut items, mut depth, mut start) = (vec![], 0, 0);
    for (i, c) in group.char_indices() {
        match c {
            '{' => depth += 1,
            '}' => depth -= 1,
            ',' if depth == 0 => {
                items.push(group[start..i].trim());
                start = i + 1;
            }
            _ => {}
        }
    }
    items.push(group[start..].trim());
    items.into_iter().filter(|i| !i.is_empty()).collect()
}

/// The identifiers of a path up to its first non-path character (`data::clip::Clip<'a>` → data, clip, Clip).
fn segments(path: &str) -> Vec<String> {
    let mut out = vec![];
    for part in path.split("::") {
        let ident: String = part.chars().take_while(|c| c.is_alphanumeric() || *c == '_').collect();
        if ident.is_empty() {
            break;
        }
        let whole = ident.len() == part.len();
        out.push(ident);
        if !whole {
            break;
        }
    }
    out
}

/// Checks `files` (paths relative to `src`, with their text) against the rules above.
fn check(files: &[(PathBuf, String)]) -> Report {
    let mut report = Report::default();
    for (path, source) in files {
        let from = module_of_file(path);
        for target in crate_paths(&code_only(source)) {
            let shown = format!("{}: crate::{}", path.display(), target.join("::"));
            let Some(to) = module_of_path(&target) else {
                report.violations.push(format!("{shown} imports through the crate root"));
                continue;
            };
            let Some(from) = &from else { continue };
            if from.name == to.name {
                continue;
            }
            let (from_room, to_room) = (ROOMS[from.room].0, ROOMS[to.room].0);
            let forbidden = FORBIDDEN.iter().any(|(room, no)| *room == from_room && no.contains(&to_room));
            if to.room > from.room || forbidden {
                report.violations.push(format!("{shown} runs back up ({from_room} imports {to_room})"));
            } else if from_room == "data" && to_room != "base" && to_room != "data" {
                report.violations.push(format!("{shown}: data imports only the base"));
            }
            report.edges.insert((from.name.clone(), to.name.clone()));
        }
    }
    report.cycles = cycles(&report.edges);
    report
}

/// Every circle in the module graph, each once (found by a depth-first walk from each module).
fn cycles(edges: &BTreeSet<(String, String)>) -> Vec<Vec<String>> {
    let mut next: BTreeMap<&str, Vec<&str>> = BTreeMap::new();
    for (a, b) in edges {
        next.entry(a).or_default().push(b);
    }
    let mut found: BTreeSet<Vec<String>> = BTreeSet::new();
    fn walk<'a>(
        at: &'a str,
        next: &BTreeMap<&'a str, Vec<&'a str>>,
        stack: &mut Vec<&'a str>,
        found: &mut BTreeSet<Vec<String>>,
    ) {
        if let Some(i) = stack.iter().position(|m| *m == at) {
            let mut circle: Vec<String> = stack[i..].iter().map(|m| m.to_string()).collect();
            // The same circle from another start is the same circle.
            let smallest = (0..circle.len()).min_by_key(|&k| &circle[k]).unwrap_or(0);
            circle.rotate_left(smallest);
            found.insert(circle);
            return;
        }
        if stack.len() > 64 {
            return;
        }
        stack.push(at);
        for to in next.get(at).into_iter().flatten() {
            walk(to, next, stack, found);
        }
        stack.pop();
    }
    for start in next.keys() {
        walk(start, &next, &mut vec![], &mut found);
    }
    found.into_iter().collect()
}

fn source_files(dir: &Path, root: &Path, out: &mut Vec<(PathBuf, String)>) {
    let mut entries: Vec<_> = std::fs::read_dir(dir).expect("core/src is readable").flatten().collect();
    entries.sort_by_key(|e| e.path());
    for entry in entries {
        let path = entry.path();
        if path.is_dir() {
            source_files(&path, root, out);
        } else if path.extension().is_some_and(|e| e == "rs") {
            let text = std::fs::read_to_string(&path).expect("a source file is readable");
            out.push((path.strip_prefix(root).expect("under src").to_path_buf(), text));
        }
    }
}

#[test]
fn core_keeps_its_floor_plan() {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut files = vec![];
    source_files(&src, &src, &mut files);
    assert!(files.len() > 20, "core/src holds its modules ({} files read)", files.len());
    let report = check(&files);
    println!(
        "{} files, {} module imports, {} imports that run back up or through the root, {} cycles",
        files.len(),
        report.edges.len(),
        report.violations.len(),
        report.cycles.len()
    );
    assert!(report.violations.is_empty(), "floor plan broken:\n{}", report.violations.join("\n"));
    assert!(report.cycles.is_empty(), "import circles: {:?}", report.cycles);
    // The rooms the rules name all exist, so a rename cannot make a rule vacuous.
    for (_, modules) in ROOMS {
        for module in *modules {
            let file = src.join(format!("{module}.rs"));
            let folder = src.join(module).join("mod.rs");
            assert!(file.is_file() || folder.is_file(), "the room module `{module}` exists");
        }
    }
}

fn planted(files: &[(&str, &str)]) -> Report {
    check(&files.iter().map(|(p, s)| (PathBuf::from(p), s.to_string())).collect::<Vec<_>>())
}

#[test]
fn the_checker_sees_each_kind_of_violation() {
    let through_root = planted(&[("data/clip.rs", "use crate::{Buffer, Error};\n")]);
    assert_eq!(through_root.violations.len(), 2, "{:?}", through_root.violations);
    let reexported = planted(&[("stages/blending.rs", "let x = crate::sampling::interpolate(a, b, t);\n")]);
    assert_eq!(reexported.violations.len(), 1, "{:?}", reexported.violations);
    let stage_to_motion = planted(&[("stages/ik.rs", "use crate::motion::root_motion::wrap_angle;\n")]);
    assert_eq!(stage_to_motion.violations.len(), 1, "{:?}", stage_to_motion.violations);
    let data_to_stage = planted(&[("data/skeleton.rs", "use crate::stages::skinning::Skin;\n")]);
    assert_eq!(data_to_stage.violations.len(), 1, "{:?}", data_to_stage.violations);
    let motion_to_character = planted(&[("motion/phase.rs", "fn f(c: &crate::character::Character) {}\n")]);
    assert_eq!(motion_to_character.violations.len(), 1, "{:?}", motion_to_character.violations);
    let base_to_data = planted(&[("math/soa.rs", "use crate::data::skeleton::MAX_JOINTS;\n")]);
    assert_eq!(base_to_data.violations.len(), 1, "{:?}", base_to_data.violations);
}

#[test]
fn the_checker_allows_downward_imports_and_skips_comments_and_strings() {
    let report = planted(&[
        ("stages/sampling.rs", "use crate::{arena::Arena, data::clip::{Clip, Keys}, error::Error};\n"),
        ("motion/root_motion.rs", "use crate::stages::sampling::Playback; // crate::character::Character\n"),
        ("character.rs", "use crate::motion::phase::PhaseTable;\nlet s = \"crate::Error\";\n"),
        ("data/asset.rs", "/// See [`crate::SamplingContext`].\nuse crate::data::clip::Clip;\n"),
        ("lib.rs", "pub use data::{asset, clip};\n"),
    ]);
    assert!(report.violations.is_empty(), "{:?}", report.violations);
    assert!(report.cycles.is_empty());
}

#[test]
fn the_checker_finds_circles_inside_a_room() {
    let report = planted(&[
        ("stages/ik.rs", "use crate::stages::foot_planting::FootPlanter;\n"),
        ("stages/foot_planting.rs", "use crate::stages::ik::TwoBoneIkJob;\n"),
    ]);
    assert!(report.violations.is_empty(), "{:?}", report.violations);
    assert_eq!(report.cycles, vec![vec!["stages::foot_planting".to_string(), "stages::ik".to_string()]]);
}
