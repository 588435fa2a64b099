//! `output_capabilities.image` on a Gemini model, end to end against the fake Gemini server:
//! the request asks for text and images and tells the model how to name them; the images of
//! the answer become files in the working directory, never outside it.

#![allow(clippy::unwrap_used, clippy::expect_used, reason = "tests")]

use tempfile::TempDir;
use tether_test_support::cli;
use tether_test_support::fake_llm::{FakeLlm, Turn};

/// "PNG!" base64-encoded.
const IMAGE: &str = "UE5HIQ==";

fn agent(d: &std::path::Path, fake: &FakeLlm, output: &str) {
    std::fs::write(
        d.join("agent.yaml"),
        format!(
            "models:\n  img:\n    provider: google\n    model: gemini-2.5-flash-image\n    base_url: \"{}\"\n{output}agents:\n  root:\n    model: img\n    instruction: Draw when asked.\n",
            fake.base_url()
        ),
    )
    .unwrap();
}

fn run(d: &std::path::Path, prompt: &str) -> std::process::Output {
    cli::tether(d)
        .env("GOOGLE_API_KEY", "k")
        .args(["run", "agent.yaml", "--yolo", "--exec", prompt])
        .output()
        .unwrap()
}

#[test]
fn an_image_model_is_asked_for_images_and_its_image_lands_under_the_name_it_gave() {
    let dir = TempDir::new().unwrap();
    let d = dir.path();
    let fake = FakeLlm::start_blocking().unwrap();
    fake.push(
        Turn::text("Here is your panda.\n[media-file: art/red-panda.png]\n")
            .and_image("image/png", IMAGE),
    );
    agent(d, &fake, "    output_capabilities:\n      image: true\n");
    let out = run(d, "draw a red panda");
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert_eq!(out.status.code(), Some(0), "{out:?}");
    assert_eq!(std::fs::read(d.join("art/red-panda.png")).unwrap(), b"PNG!");
    let body = &fake.requests()[0].body;
    assert_eq!(
        body["generationConfig"]["responseModalities"],
        serde_json::json!(["TEXT", "IMAGE"])
    );
    let system = body["systemInstruction"].to_string();
    assert!(
        system.contains("[media-file: relative/path.ext]"),
        "{system}"
    );
    assert!(stdout.contains("Here is your panda"), "{stdout}");
}

#[test]
fn a_name_leaving_the_working_directory_is_not_used() {
    let dir = TempDir::new().unwrap();
    let work = dir.path().join("work");
    std::fs::create_dir(&work).unwrap();
    let fake = FakeLlm::start_blocking().unwrap();
    fake.push(Turn::text("[media-file: ../escaped.png]\n").and_image("image/png", IMAGE));
    agent(
        &work,
        &fake,
        "    output_capabilities:\n      image: true\n",
    );
    let out = run(&work, "draw");
    assert_eq!(out.status.code(), Some(0), "{out:?}");
    assert!(!dir.path().join("escaped.png").exists());
    assert_eq!(
        std::fs::read(work.join("generated-image-1.png")).unwrap(),
        b"PNG!"
    );
}

#[test]
fn without_output_capabilities_the_model_is_asked_for_text_only() {
    let dir = TempDir::new().unwrap();
    let d = dir.path();
    let fake = FakeLlm::start_blocking().unwrap();
    fake.push(Turn::text("no image"));
    agent(d, &fake, "    output_capabilities:\n      image: false\n");
    let out = run(d, "draw");
    assert_eq!(out.status.code(), Some(0), "{out:?}");
    let body = &fake.requests()[0].body;
    assert!(
        body["generationConfig"]["responseModalities"].is_null(),
        "{body}"
    );
    assert!(!body.to_string().contains("media-file"), "{body}");
}

#[test]
fn image_output_on_a_provider_other_than_gemini_is_not_supported_yet() {
    let dir = TempDir::new().unwrap();
    let d = dir.path();
    std::fs::write(
        d.join("agent.yaml"),
        "models:\n  m:\n    provider: openai\n    model: gpt-image-1\n    output_capabilities:\n      image: true\nagents:\n  root:\n    model: m\n",
    )
    .unwrap();
    let out = cli::tether(d)
        .args(["hooks", "check", "agent.yaml"])
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_ne!(out.status.code(), Some(0));
    assert!(
        stderr.contains("`output_capabilities.image` is not supported yet for provider `openai`"),
        "{stderr}"
    );
}
