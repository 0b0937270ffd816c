//! A small BVH (Biovision hierarchy) reader: every channel layout the shared data uses (3- and 6-channel
//! joints, any rotation order, position channels on non-root joints, zero-length offsets, End Sites).
//!
//! No crate on crates.io reads BVH with position channels on every joint and reports errors with line
//! numbers, so this is own-written (DESIGN §7 allows that for BVH).
//!
//! Conventions (as the BVH files themselves use them): a joint's local translation is its OFFSET unless it
//! has position channels, which then replace it component by component; rotation channels compose in the
//! order listed (`Zrotation Xrotation Yrotation` is `Rz · Rx · Ry` on column vectors), in degrees; frame `k`
//! is at `k × frame_time` seconds. End Sites carry no channels and are not joints.

use crate::raw::{RawClip, RawSkeleton, StepKeys, check_clip_shape};
use sinew::math::{Quat, Transform, Vec3};
use std::fmt;

/// One BVH channel.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum BvhChannel {
    Position(usize),
    Rotation(usize),
}

#[derive(Clone, Debug)]
pub struct BvhJoint {
    pub name: String,
    /// −1 for a ROOT.
    pub parent: i32,
    pub offset: [f64; 3],
    pub channels: Vec<BvhChannel>,
    /// Index of this joint's first channel within a frame's values.
    pub first_channel: usize,
}

/// A parsed BVH file: joints in file order (parents first), and `frames × num_channels` values.
#[derive(Clone, Debug)]
pub struct Bvh {
    pub joints: Vec<BvhJoint>,
    pub frame_time: f64,
    pub num_frames: usize,
    pub num_channels: usize,
    pub values: Vec<f64>,
}

/// What is wrong with a BVH file, and on which line (1-based).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct BvhError {
    pub line: usize,
    pub message: String,
}

impl fmt::Display for BvhError {
    /// `line: message`, so that a caller prefixing the file's path gives `file:line: message`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: {}", self.line, self.message)
    }
}

impl std::error::Error for BvhError {}

/// Whitespace-separated tokens with their 1-based line, read lazily (nothing is allocated per token).
struct Tokens<'a> {
    lines: std::iter::Enumerate<std::str::Lines<'a>>,
    words: std::str::SplitWhitespace<'a>,
    line: usize,
    peeked: Option<(usize, &'a str)>,
}

impl<'a> Tokens<'a> {
    fn new(text: &'a str) -> Tokens<'a> {
        let mut tokens =
            Tokens { lines: text.lines().enumerate(), words: "".split_whitespace(), line: 1, peeked: None };
        tokens.peeked = tokens.advance();
        tokens
    }

    fn advance(&mut self) -> Option<(usize, &'a str)> {
        loop {
            if let Some(word) = self.words.next() {
                return Some((self.line, word));
            }
            let (i, line) = self.lines.next()?;
            (self.line, self.words) = (i + 1, line.split_whitespace());
        }
    }

    /// The line of the next token, or of the last one at the end of the file.
    fn line(&self) -> usize {
        self.peeked.map_or(self.line, |t| t.0)
    }

    fn err<T>(&self, message: impl Into<String>) -> Result<T, BvhError> {
        Err(BvhError { line: self.line(), message: message.into() })
    }

    fn next(&mut self) -> Result<&'a str, BvhError> {
        match self.peeked {
            Some((_, t)) => {
                self.peeked = self.advance();
                Ok(t)
            }
            None => self.err("unexpected end of file"),
        }
    }

    fn peek(&self) -> Option<&'a str> {
        self.peeked.map(|t| t.1)
    }

    fn expect(&mut self, word: &str) -> Result<(), BvhError> {
        let line = self.line();
        let t = self.next()?;
        if t.eq_ignore_ascii_case(word) {
            Ok(())
        } else {
            Err(BvhError { line, message: format!("expected `{word}`, found `{t}`") })
        }
    }

    fn number(&mut self) -> Result<f64, BvhError> {
        let line = self.line();
        let t = self.next()?;
        match t.parse::<f64>() {
            Ok(v) if v.is_finite() => Ok(v),
            _ => Err(BvhError { line, message: format!("`{t}` is not a finite number") }),
        }
    }

    /// A count; one past `usize` (a 32-bit target) saturates, so the limits that follow refuse it as they
    /// refuse any count too large, with the same message on every target.
    fn count(&mut self) -> Result<usize, BvhError> {
        let line = self.line();
        let t = self.next()?;
        let count = t.parse::<u64>().map_err(|_| BvhError { line, message: format!("`{t}` is not a count") })?;
        Ok(usize::try_from(count).unwrap_or(usize::MAX))
    }
}

impl Bvh {
    /// Parses BVH text.
    ///
    /// Errors (with the line): malformed syntax, more than `sinew::skeleton::MAX_JOINTS` joints (reported at
    /// the joint past the limit, before it is parsed), a frame count or frame time outside what a clip may hold
    /// (`raw::check_clip_shape`), frames × joints above the file's byte count, and a value count other than
    /// frames × channels. Nothing is allocated before the counts are known to fit the file: the values need at
    /// least two bytes each.
    pub fn parse(text: &str) -> Result<Bvh, BvhError> {
        let mut tokens = Tokens::new(text);
        tokens.expect("HIERARCHY")?;
        let mut joints = Vec::new();
        let mut num_channels = 0;
        while tokens.peek().is_some_and(|t| t.eq_ignore_ascii_case("ROOT")) {
            tokens.next()?;
            parse_hierarchy(&mut tokens, &mut joints, &mut num_channels)?;
        }
        if joints.is_empty() {
            return tokens.err("no ROOT joint");
        }
        tokens.expect("MOTION")?;
        tokens.expect("Frames:")?;
        let frames_line = tokens.line();
        let num_frames = tokens.count()?;
        tokens.expect("Frame")?;
        tokens.expect("Time:")?;
        let line = tokens.line();
        let frame_time = tokens.number()?;
        if frame_time <= 0.0 {
            return Err(BvhError { line, message: "Frame Time must be positive".into() });
        }
        check_clip_shape(num_frames as f64, 1.0 / frame_time, joints.len()).map_err(|message| BvhError {
            line,
            message: format!("Frames: {num_frames}, Frame Time: {frame_time}: {message}"),
        })?;
        // Every joint gets a transform per frame: at least one byte of file per joint-frame, so a tiny file
        // cannot ask for a huge clip (joints without channels need no values).
        if num_frames.checked_mul(joints.len()).is_none_or(|n| n > text.len()) {
            return Err(BvhError {
                line: frames_line,
                message: format!(
                    "{num_frames} frames × {} joints need more than this {} byte file",
                    joints.len(),
                    text.len()
                ),
            });
        }
        let expected =
            num_frames.checked_mul(num_channels).filter(|&v| v <= text.len() / 2 + 1).ok_or_else(|| BvhError {
                line: frames_line,
                message: format!(
                    "{num_frames} frames × {num_channels} channels cannot fit in a {} byte file",
                    text.len()
                ),
            })?;
        let mut values = Vec::with_capacity(expected);
        while tokens.peek().is_some() {
            if values.len() == expected {
                return tokens
                    .err(format!("{num_frames} frames × {num_channels} channels need {expected} values; more follow"));
            }
            values.push(tokens.number()?);
        }
        if num_frames == 0 || values.len() != expected {
            return Err(BvhError {
                line: tokens.line(),
                message: format!(
                    "{num_frames} frames × {num_channels} channels need {expected} values, found {}",
                    values.len()
                ),
            });
        }
        Ok(Bvh { joints, frame_time, num_frames, num_channels, values })
    }

    /// Reads and parses a file. Errors read `file:line: message`.
    pub fn load(path: &std::path::Path) -> Result<Bvh, Box<dyn std::error::Error>> {
        let text = std::fs::read_to_string(path).map_err(|e| format!("{}: {e}", path.display()))?;
        Ok(Bvh::parse(&text).map_err(|e| format!("{}:{e}", path.display()))?)
    }

    /// Values of frame `f`.
    pub fn frame(&self, f: usize) -> &[f64] {
        &self.values[f * self.num_channels..(f + 1) * self.num_channels]
    }
}

/// One ROOT's hierarchy (the `ROOT` keyword consumed), iteratively: `open` holds the joints whose `}` is still
/// to come, so nesting depth costs no stack.
fn parse_hierarchy(
    tokens: &mut Tokens<'_>,
    joints: &mut Vec<BvhJoint>,
    num_channels: &mut usize,
) -> Result<(), BvhError> {
    let mut open: Vec<i32> = Vec::new();
    let mut parent = -1;
    loop {
        // A joint's header, its name already next.
        if joints.len() >= sinew::skeleton::MAX_JOINTS {
            return tokens.err(format!("more than {} joints", sinew::skeleton::MAX_JOINTS));
        }
        let name = tokens.next()?.to_string();
        tokens.expect("{")?;
        tokens.expect("OFFSET")?;
        let offset = [tokens.number()?, tokens.number()?, tokens.number()?];
        tokens.expect("CHANNELS")?;
        let n = tokens.count()?;
        if n > 6 {
            return tokens.err(format!("joint `{name}` has {n} channels; at most 6"));
        }
        let mut channels = Vec::with_capacity(n);
        for _ in 0..n {
            let line = tokens.line();
            let t = tokens.next()?;
            let axis = match t.as_bytes().first().map(u8::to_ascii_uppercase) {
                Some(b'X') => 0,
                Some(b'Y') => 1,
                Some(b'Z') => 2,
                _ => return Err(BvhError { line, message: format!("unknown channel `{t}`") }),
            };
            let channel = match t.get(1..).map(str::to_ascii_lowercase).as_deref() {
                Some("position") => BvhChannel::Position(axis),
                Some("rotation") => BvhChannel::Rotation(axis),
                _ => return Err(BvhError { line, message: format!("unknown channel `{t}`") }),
            };
            if channels.contains(&channel) {
                return Err(BvhError { line, message: format!("channel `{t}` repeated") });
            }
            channels.push(channel);
        }
        let index = joints.len() as i32;
        joints.push(BvhJoint { name, parent, offset, channels, first_channel: *num_channels });
        *num_channels += n;
        open.push(index);
        // The joint's body: children open a new joint; `}` closes the innermost open one.
        loop {
            let line = tokens.line();
            match tokens.next()? {
                "}" => {
                    open.pop();
                    match open.last() {
                        Some(_) => continue,
                        None => return Ok(()),
                    }
                }
                t if t.eq_ignore_ascii_case("JOINT") => {
                    parent = *open.last().unwrap_or(&-1);
                    break;
                }
                t if t.eq_ignore_ascii_case("End") => {
                    tokens.expect("Site")?;
                    tokens.expect("{")?;
                    tokens.expect("OFFSET")?;
                    for _ in 0..3 {
                        tokens.number()?;
                    }
                    tokens.expect("}")?;
                }
                t => return Err(BvhError { line, message: format!("expected JOINT, End Site or `}}`, found `{t}`") }),
            }
        }
    }
}

/// Skeleton and clip of a BVH file: rest pose = OFFSETs with identity rotations, one frame per BVH frame,
/// file units kept.
pub fn to_raw(bvh: &Bvh, name: &str) -> Result<(RawSkeleton, RawClip), String> {
    if bvh.joints.len() > sinew::skeleton::MAX_JOINTS {
        return Err(format!("{} joints; sinew allows {}", bvh.joints.len(), sinew::skeleton::MAX_JOINTS));
    }
    check_clip_shape(bvh.num_frames as f64, 1.0 / bvh.frame_time, bvh.joints.len())?;
    let to_vec3 = |v: [f64; 3]| Vec3::new(v[0] as f32, v[1] as f32, v[2] as f32);
    let skeleton = RawSkeleton {
        names: bvh.joints.iter().map(|j| j.name.clone()).collect(),
        parents: bvh.joints.iter().map(|j| j.parent as i16).collect(),
        rest: bvh.joints.iter().map(|j| Transform { translation: to_vec3(j.offset), ..Transform::IDENTITY }).collect(),
    };
    let frames = (0..bvh.num_frames)
        .map(|f| {
            (0..bvh.joints.len())
                .map(|j| {
                    let (t, q) = local_transform(bvh, j, f);
                    let rotation = Quat::new(q[0] as f32, q[1] as f32, q[2] as f32, q[3] as f32);
                    Transform { translation: to_vec3(t), rotation, scale: Vec3::ONE }
                })
                .collect()
        })
        .collect();
    Ok((
        skeleton,
        RawClip { name: name.to_string(), sample_rate: (1.0 / bvh.frame_time) as f32, frames, step: StepKeys::None },
    ))
}

/// BVH files of one skeleton (same joint names and parents): the skeleton and one clip per file, named
/// after the file's stem.
pub fn load_raw_files(paths: &[std::path::PathBuf]) -> Result<(RawSkeleton, Vec<RawClip>), String> {
    let mut skeleton: Option<RawSkeleton> = None;
    let mut clips = Vec::new();
    for path in paths {
        let bvh = Bvh::load(path).map_err(|e| e.to_string())?;
        let name = path.file_stem().map_or("clip".into(), |s| s.to_string_lossy().into_owned());
        let (s, clip) = to_raw(&bvh, &name)?;
        match &skeleton {
            None => skeleton = Some(s),
            Some(first) if first.names == s.names && first.parents == s.parents => {}
            Some(_) => return Err(format!("{}: a different skeleton than the first file", path.display())),
        }
        clips.push(clip);
    }
    Ok((skeleton.ok_or("no input files")?, clips))
}

/// Local transform of `joint` in frame `f`, in f64: translation (file units) and rotation quaternion
/// `(x, y, z, w)`. The independent reference of the tests recomputes this with matrices.
pub fn local_transform(bvh: &Bvh, joint: usize, f: usize) -> ([f64; 3], [f64; 4]) {
    let j = &bvh.joints[joint];
    let values = &bvh.frame(f)[j.first_channel..j.first_channel + j.channels.len()];
    let mut translation = j.offset;
    let mut rotation = [0.0, 0.0, 0.0, 1.0];
    for (channel, &v) in j.channels.iter().zip(values) {
        match *channel {
            BvhChannel::Position(axis) => translation[axis] = v,
            BvhChannel::Rotation(axis) => {
                let (s, c) = (v.to_radians() * 0.5).sin_cos();
                let mut q = [0.0, 0.0, 0.0, c];
                q[axis] = s;
                rotation = quat_mul(rotation, q);
            }
        }
    }
    (translation, rotation)
}

/// Hamilton product `a * b` (b applied first), `(x, y, z, w)`.
fn quat_mul(a: [f64; 4], b: [f64; 4]) -> [f64; 4] {
    [
        a[3] * b[0] + a[0] * b[3] + a[1] * b[2] - a[2] * b[1],
        a[3] * b[1] - a[0] * b[2] + a[1] * b[3] + a[2] * b[0],
        a[3] * b[2] + a[0] * b[1] - a[1] * b[0] + a[2] * b[3],
        a[3] * b[3] - a[0] * b[0] - a[1] * b[1] - a[2] * b[2],
    ]
}
