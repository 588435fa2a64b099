//! Skills: `SKILL.md` files (YAML front matter with `name` and `description`, then
//! instructions) found in the usual directories, plus skills written in the agent file. The
//! model sees each skill's name and description, and loads one with `read_skill` (and its
//! supporting files with `read_skill_file`) when a request matches it.

use std::path::{Component, Path, PathBuf};
use std::sync::Arc;

use futures::future::BoxFuture;
use serde::Deserialize;
use serde_json::{Map, Value, json};

use crate::args::parse;
use crate::schema::{object, string};
use crate::{Tool, ToolContext, ToolDefinition, ToolResult};

/// One skill.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Skill {
    pub name: String,
    pub description: String,
    pub body: SkillBody,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum SkillBody {
    /// A `SKILL.md` in `dir`, with the other files of the directory (relative, `/`-separated).
    File { dir: PathBuf, files: Vec<String> },
    /// Written in the agent file.
    Inline(String),
}

impl Skill {
    /// The skill's text: its `SKILL.md` as written, or its inline instructions.
    pub fn content(&self) -> Result<String, String> {
        match &self.body {
            SkillBody::Inline(text) => Ok(text.clone()),
            SkillBody::File { dir, .. } => std::fs::read_to_string(dir.join("SKILL.md"))
                .map_err(|e| format!("reading file: {e}")),
        }
    }

    fn files(&self) -> &[String] {
        match &self.body {
            SkillBody::File { files, .. } => files,
            SkillBody::Inline(_) => &[],
        }
    }
}

/// Where skills are looked for, in load order (a later skill of the same name wins): the
/// global directories, then the project's from the git root down to `cwd`.
pub fn skill_dirs(home: Option<&Path>, cwd: &Path) -> Vec<(PathBuf, bool)> {
    let mut dirs = Vec::new();
    if let Some(home) = home {
        dirs.push((home.join(".codex/skills"), true));
        dirs.push((home.join(".claude/skills"), false));
        dirs.push((home.join(".agents/skills"), true));
    }
    let root = cwd
        .ancestors()
        .find(|d| d.join(".git").exists())
        .unwrap_or(cwd);
    let mut chain: Vec<&Path> = cwd
        .ancestors()
        .take_while(|d| d.starts_with(root))
        .collect();
    chain.reverse();
    for dir in chain {
        dirs.push((dir.join(".agents/skills"), false));
    }
    dirs.push((cwd.join(".claude/skills"), false));
    dirs
}

/// The skills under `dirs` (`true`: searched recursively, else immediate children only).
/// A `SKILL.md` without a name and a description is skipped and reported in the second list.
pub fn discover(dirs: &[(PathBuf, bool)]) -> (Vec<Skill>, Vec<String>) {
    let mut skills: Vec<Skill> = Vec::new();
    let mut problems = Vec::new();
    for (dir, recursive) in dirs {
        let mut found = Vec::new();
        find_skill_files(dir, *recursive, 0, &mut found);
        found.sort();
        for path in found {
            match read_skill(&path) {
                Ok(skill) => {
                    skills.retain(|s| s.name != skill.name);
                    skills.push(skill);
                }
                Err(e) => problems.push(format!("{}: {e}", path.display())),
            }
        }
    }
    (skills, problems)
}

fn find_skill_files(dir: &Path, recursive: bool, depth: usize, out: &mut Vec<PathBuf>) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    for entry in entries.flatten() {
        let path = entry.path();
        if !path.is_dir() {
            continue;
        }
        let file = path.join("SKILL.md");
        if file.is_file() {
            out.push(file);
        } else if recursive && depth < 8 {
            find_skill_files(&path, recursive, depth + 1, out);
        }
    }
}

#[derive(Debug, Deserialize)]
struct FrontMatter {
    name: Option<String>,
    description: Option<String>,
}

fn read_skill(path: &Path) -> Result<Skill, String> {
    let text = std::fs::read_to_string(path).map_err(|e| e.to_string())?;
    let front = front_matter(&text).ok_or("no `---` front matter")?;
    let meta: FrontMatter = serde_saphyr::from_str(front).map_err(|e| e.to_string())?;
    let name = meta
        .name
        .filter(|n| !n.trim().is_empty())
        .ok_or("the front matter has no `name`")?;
    let description = meta
        .description
        .filter(|d| !d.trim().is_empty())
        .ok_or("the front matter has no `description`")?;
    let dir = path.parent().unwrap_or(Path::new(".")).to_path_buf();
    let mut files = Vec::new();
    list_files(&dir, &dir, &mut files);
    files.sort();
    Ok(Skill {
        name: name.trim().to_owned(),
        description: description.trim().to_owned(),
        body: SkillBody::File { dir, files },
    })
}

/// The YAML between a leading `---` line and the next `---` line.
fn front_matter(text: &str) -> Option<&str> {
    let rest = text.strip_prefix("---")?;
    let rest = rest
        .strip_prefix("\r\n")
        .or_else(|| rest.strip_prefix('\n'))?;
    let end = rest.find("\n---")?;
    Some(&rest[..end])
}

fn list_files(base: &Path, dir: &Path, out: &mut Vec<String>) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    for entry in entries.flatten() {
        let path = entry.path();
        if path.is_dir() {
            list_files(base, &path, out);
        } else if let Ok(rel) = path.strip_prefix(base)
            && out.len() < 200
        {
            out.push(rel.to_string_lossy().replace('\\', "/"));
        }
    }
}

/// The system-prompt text listing the skills; `None` when there are none.
pub fn skills_instruction(skills: &[Skill]) -> Option<String> {
    if skills.is_empty() {
        return None;
    }
    let mut s = String::from(
        "Skills provide specialized instructions for specific tasks. When a user's request matches a skill's description, use read_skill to load its instructions.\n\n",
    );
    if has_files(skills) {
        s.push_str("Some skills have supporting files. Use read_skill_file to load referenced files on demand — do not preload them.\n\n");
    }
    s.push_str("<available_skills>\n");
    for skill in skills {
        s.push_str(&format!(
            "  <skill>\n    <name>{}</name>\n    <description>{}</description>\n",
            skill.name, skill.description
        ));
        let others: Vec<&str> = skill
            .files()
            .iter()
            .map(String::as_str)
            .filter(|f| *f != "SKILL.md")
            .collect();
        if !others.is_empty() {
            s.push_str(&format!("    <files>{}</files>\n", others.join(", ")));
        }
        s.push_str("  </skill>\n");
    }
    s.push_str("</available_skills>");
    Some(s)
}

fn has_files(skills: &[Skill]) -> bool {
    skills.iter().any(|s| s.files().len() > 1)
}

/// `read_skill`, and `read_skill_file` when a skill has supporting files.
pub fn skill_tools(skills: Vec<Skill>) -> Vec<Arc<dyn Tool>> {
    if skills.is_empty() {
        return Vec::new();
    }
    let files = has_files(&skills);
    let skills = Arc::new(skills);
    let mut tools: Vec<Arc<dyn Tool>> = vec![Arc::new(SkillTool {
        skills: Arc::clone(&skills),
        file: false,
        definition: ToolDefinition {
            name: "read_skill".to_owned(),
            description: "Read the content of a skill by name. Use this when a user's request matches an available skill.".to_owned(),
            parameters: object(json!({"name": string("The name of the skill to read")}), &["name"]),
            read_only: true,
            category: "skills",
        },
    })];
    if files {
        tools.push(Arc::new(SkillTool {
            skills,
            file: true,
            definition: ToolDefinition {
                name: "read_skill_file".to_owned(),
                description: "Read a supporting file from a skill (e.g. references, scripts, assets). Use when skill instructions reference additional files.".to_owned(),
                parameters: object(
                    json!({
                        "skill_name": string("The name of the skill that contains the file"),
                        "path": string("The relative path to the file within the skill (e.g. references/FORMS.md)"),
                    }),
                    &["skill_name", "path"],
                ),
                read_only: true,
                category: "skills",
            },
        }));
    }
    tools
}

#[derive(Debug)]
struct SkillTool {
    skills: Arc<Vec<Skill>>,
    file: bool,
    definition: ToolDefinition,
}

#[derive(Deserialize)]
struct ReadSkill {
    name: String,
}

#[derive(Deserialize)]
struct ReadSkillFile {
    skill_name: String,
    path: String,
}

impl SkillTool {
    fn find(&self, name: &str) -> Result<&Skill, String> {
        self.skills
            .iter()
            .find(|s| s.name == name)
            .ok_or_else(|| format!("skill {name:?} not found"))
    }

    fn read(&self, args: &Map<String, Value>) -> Result<String, String> {
        if !self.file {
            let a: ReadSkill = parse("read_skill", args).map_err(|e| e.to_string())?;
            return self.find(&a.name)?.content();
        }
        let a: ReadSkillFile = parse("read_skill_file", args).map_err(|e| e.to_string())?;
        let skill = self.find(&a.skill_name)?;
        let SkillBody::File { dir, .. } = &skill.body else {
            return Err(format!("skill {:?} has no files", a.skill_name));
        };
        let rel = Path::new(&a.path);
        if a.path.is_empty() || !rel.components().all(|c| matches!(c, Component::Normal(_))) {
            return Err(format!("invalid file path {:?}", a.path));
        }
        std::fs::read_to_string(dir.join(rel)).map_err(|e| format!("reading file: {e}"))
    }
}

impl Tool for SkillTool {
    fn definition(&self) -> &ToolDefinition {
        &self.definition
    }

    fn call<'a>(
        &'a self,
        args: &'a Map<String, Value>,
        _ctx: ToolContext<'a>,
    ) -> BoxFuture<'a, ToolResult> {
        let result = match self.read(args) {
            Ok(text) => ToolResult::ok(text),
            Err(e) => ToolResult::error(e),
        };
        Box::pin(std::future::ready(result))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use tokio_util::sync::CancellationToken;

    fn write(path: &Path, text: &str) {
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(path, text).unwrap();
    }

    fn skill_md(name: &str, description: &str) -> String {
        format!("---\nname: {name}\ndescription: {description}\n---\n# {name}\nDo it well.\n")
    }

    #[tokio::test]
    async fn skills_are_found_overridden_and_read() {
        let home = tempfile::tempdir().unwrap();
        let project = tempfile::tempdir().unwrap();
        std::fs::create_dir(project.path().join(".git")).unwrap();
        let cwd = project.path().join("sub");
        std::fs::create_dir_all(&cwd).unwrap();
        write(
            &home.path().join(".agents/skills/team/dockerfile/SKILL.md"),
            &skill_md("dockerfile", "global version"),
        );
        write(
            &home.path().join(".claude/skills/review/SKILL.md"),
            &skill_md("review", "Review a PR"),
        );
        write(
            &home.path().join(".claude/skills/deep/nested/SKILL.md"),
            &skill_md("nested", "not found: .claude/skills is flat"),
        );
        write(
            &project.path().join(".agents/skills/dockerfile/SKILL.md"),
            &skill_md("dockerfile", "project version"),
        );
        write(
            &project
                .path()
                .join(".agents/skills/dockerfile/references/BASE.md"),
            "use slim images",
        );
        write(
            &cwd.join(".agents/skills/broken/SKILL.md"),
            "---\nname: broken\n---\n",
        );
        let dirs = skill_dirs(Some(home.path()), &cwd);
        let (skills, problems) = discover(&dirs);
        let names: Vec<(&str, &str)> = skills
            .iter()
            .map(|s| (s.name.as_str(), s.description.as_str()))
            .collect();
        assert_eq!(
            names,
            vec![("review", "Review a PR"), ("dockerfile", "project version")]
        );
        assert_eq!(problems.len(), 1, "{problems:?}");
        assert!(problems[0].contains("no `description`"), "{problems:?}");

        let text = skills_instruction(&skills).unwrap();
        assert!(text.contains("<files>references/BASE.md</files>"), "{text}");
        let tools = skill_tools(skills);
        assert_eq!(tools.len(), 2);
        let cancel = CancellationToken::new();
        let ctx = ToolContext {
            working_dir: &cwd,
            cancel: &cancel,
            env: &[],
            progress: None,
        };
        let args = |v: Value| v.as_object().unwrap().clone();
        let read = tools[0]
            .call(&args(json!({"name": "dockerfile"})), ctx)
            .await;
        assert!(read.content.contains("project version"), "{read:?}");
        let file = tools[1]
            .call(
                &args(json!({"skill_name": "dockerfile", "path": "references/BASE.md"})),
                ctx,
            )
            .await;
        assert_eq!(file.content, "use slim images");
        let escape = tools[1]
            .call(
                &args(json!({"skill_name": "dockerfile", "path": "../../secret"})),
                ctx,
            )
            .await;
        assert!(
            escape.is_error && escape.content.contains("invalid file path"),
            "{escape:?}"
        );
        let missing = tools[0].call(&args(json!({"name": "nope"})), ctx).await;
        assert_eq!(
            (missing.is_error, missing.content.as_str()),
            (true, "skill \"nope\" not found")
        );
    }
}
