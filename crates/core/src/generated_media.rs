//! `output_capabilities.image`: the images a model generates become files in the working
//! directory, and the answer says where, instead of carrying the image bytes into the
//! conversation (which would send them back to the model on every later turn).
//!
//! The model names each image with a line `[media-file: relative/path.ext]` (it is asked to
//! by the provider's request); the Nth marker names the Nth image. A marker is only a wish:
//! a name that is absolute, leaves the working directory, passes through a symlink or is
//! already taken falls back to `generated-image-N.EXT` (never overwriting a file), so a
//! model cannot write outside the working directory or over the user's files.

use std::io::Write;
use std::path::{Component, Path, PathBuf};

use base64::Engine;
use tether_protocol::chat::{ContentPart, Message};

const MARKER: &str = "[media-file:";
/// Longest accepted marker path, in bytes.
const MAX_NAME: usize = 200;

/// Writes the images of `message` under `working_dir`, drops them and their marker lines from
/// the message and appends one `[image saved: PATH]` line per file (or why it was not).
pub(crate) fn materialize(message: &mut Message, working_dir: &Path) {
    let images: Vec<String> = message
        .multi_content
        .iter()
        .filter_map(|p| match p {
            ContentPart::ImageUrl { image_url } => Some(image_url.url.clone()),
            ContentPart::Text { .. } => None,
        })
        .collect();
    if images.is_empty() {
        return;
    }
    message
        .multi_content
        .retain(|p| !matches!(p, ContentPart::ImageUrl { .. }));
    let mut names = Vec::new();
    let mut kept = Vec::new();
    for line in message.content.lines() {
        match line
            .trim()
            .strip_prefix(MARKER)
            .and_then(|r| r.strip_suffix(']'))
        {
            Some(name) => names.push(name.trim().to_owned()),
            None => kept.push(line),
        }
    }
    let mut text = kept.join("\n").trim_end().to_owned();
    for (i, url) in images.iter().enumerate() {
        let note = match save(url, names.get(i).map(String::as_str), i + 1, working_dir) {
            Ok(path) => format!("[image saved: {}]", path.display()),
            Err(e) => format!("[image not saved: {e}]"),
        };
        if !text.is_empty() {
            text.push('\n');
        }
        text.push_str(&note);
    }
    message.content = text;
}

fn save(url: &str, wanted: Option<&str>, n: usize, dir: &Path) -> Result<PathBuf, String> {
    let (mime, data) = url
        .strip_prefix("data:")
        .and_then(|r| r.split_once(";base64,"))
        .ok_or("the model sent an image that is not inline data")?;
    let bytes = base64::engine::general_purpose::STANDARD
        .decode(data.trim())
        .map_err(|e| format!("the image is not valid base64 ({e})"))?;
    let ext = match mime {
        "image/png" => "png",
        "image/jpeg" => "jpg",
        "image/webp" => "webp",
        "image/gif" => "gif",
        _ => "bin",
    };
    if let Some(path) = wanted.and_then(|w| safe_name(w, dir))
        && write_new(&dir.join(&path), &bytes).is_ok()
    {
        return Ok(path);
    }
    for k in 0..1000 {
        let name = if k == 0 {
            format!("generated-image-{n}.{ext}")
        } else {
            format!("generated-image-{n}-{k}.{ext}")
        };
        match write_new(&dir.join(&name), &bytes) {
            Ok(()) => return Ok(PathBuf::from(name)),
            Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => {}
            Err(e) => return Err(format!("cannot write `{name}`: {e}")),
        }
    }
    Err("no free `generated-image-*` name in the working directory".to_owned())
}

/// The marker's path when it stays inside `dir`: relative, plain components only, and no
/// existing component a symlink.
fn safe_name(wanted: &str, dir: &Path) -> Option<PathBuf> {
    if wanted.is_empty() || wanted.len() > MAX_NAME || wanted.contains('\0') {
        return None;
    }
    let path = Path::new(wanted);
    if !path.components().all(|c| matches!(c, Component::Normal(_))) {
        return None;
    }
    let mut at = dir.to_path_buf();
    for c in path.components() {
        at.push(c);
        match std::fs::symlink_metadata(&at) {
            Ok(m) if m.file_type().is_symlink() => return None,
            _ => {}
        }
    }
    Some(path.to_path_buf())
}

/// Creates `path` (and its missing parent directories) with `bytes`; an existing file is an
/// `AlreadyExists` error, never overwritten.
fn write_new(path: &Path, bytes: &[u8]) -> std::io::Result<()> {
    if let Some(parent) = path.parent() {
        std::fs::create_dir_all(parent)?;
    }
    let mut f = std::fs::OpenOptions::new()
        .write(true)
        .create_new(true)
        .open(path)?;
    f.write_all(bytes)
}

#[cfg(test)]
mod tests {
    use super::*;
    use tether_protocol::chat::ImageUrl;

    fn answer(text: &str, images: &[&str]) -> Message {
        let mut m = Message::assistant(text);
        m.multi_content = images
            .iter()
            .map(|d| ContentPart::ImageUrl {
                image_url: ImageUrl {
                    url: format!("data:image/png;base64,{d}"),
                },
            })
            .collect();
        m
    }

    #[test]
    fn an_image_is_saved_under_its_marker_name_and_the_marker_leaves_the_answer() {
        let dir = tempfile::tempdir().unwrap();
        let mut m = answer(
            "Here it is.\n[media-file: art/panda.png]\nEnjoy.",
            &["aGk="],
        );
        materialize(&mut m, dir.path());
        assert_eq!(
            std::fs::read(dir.path().join("art/panda.png")).unwrap(),
            b"hi"
        );
        assert_eq!(
            m.content,
            "Here it is.\nEnjoy.\n[image saved: art/panda.png]"
        );
        assert!(m.multi_content.is_empty());
    }

    #[test]
    fn a_marker_leaving_the_working_directory_falls_back_to_a_generated_name() {
        let dir = tempfile::tempdir().unwrap();
        let inner = dir.path().join("w");
        std::fs::create_dir(&inner).unwrap();
        for evil in ["../escape.png", "/tmp/abs.png", "./x/../../y.png"] {
            let mut m = answer(&format!("[media-file: {evil}]"), &["aGk="]);
            materialize(&mut m, &inner);
            assert!(
                m.content.starts_with("[image saved: generated-image-1"),
                "{}",
                m.content
            );
        }
        assert!(!dir.path().join("escape.png").exists());
    }

    #[test]
    fn an_existing_file_is_never_overwritten() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("keep.png"), "mine").unwrap();
        let mut m = answer("[media-file: keep.png]", &["aGk="]);
        materialize(&mut m, dir.path());
        assert_eq!(
            std::fs::read_to_string(dir.path().join("keep.png")).unwrap(),
            "mine"
        );
        assert_eq!(m.content, "[image saved: generated-image-1.png]");
    }

    #[test]
    fn a_symlinked_directory_in_the_marker_is_refused() {
        let dir = tempfile::tempdir().unwrap();
        let outside = tempfile::tempdir().unwrap();
        std::os::unix::fs::symlink(outside.path(), dir.path().join("link")).unwrap();
        let mut m = answer("[media-file: link/x.png]", &["aGk="]);
        materialize(&mut m, dir.path());
        assert!(!outside.path().join("x.png").exists());
        assert_eq!(m.content, "[image saved: generated-image-1.png]");
    }

    #[test]
    fn bad_base64_is_reported_not_saved() {
        let dir = tempfile::tempdir().unwrap();
        let mut m = answer("done", &["***"]);
        materialize(&mut m, dir.path());
        assert!(
            m.content
                .starts_with("done\n[image not saved: the image is not valid base64"),
            "{}",
            m.content
        );
    }
}
