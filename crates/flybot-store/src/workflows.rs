//! Workflow definitions on disk (#1272 step 3, #1299): `workflows/<id>.json`
//! in the home, read and written only here. A write happens only when the
//! bytes changed, atomically; a file that does not parse is skipped with one
//! warning instead of breaking the list. `workflows/project.json` records
//! the project's default workflow and is not a definition.

use crate::atomic_write;
use flybot_core::workflow::canonical::parse_definition;
use flybot_core::workflow::definition::is_workflow_id;
use flybot_protocol::workflow::WorkflowDefinition;
use serde_json::{Value, json};
use std::fs;
use std::io;
use std::path::{Path, PathBuf};

/// The folder under the home, and the file naming the project's default.
const FOLDER: &str = "workflows";
const PROJECT_FILE: &str = "project.json";

/// One definition file as read.
#[derive(Debug, Clone, PartialEq)]
pub struct StoredWorkflow {
    pub definition: WorkflowDefinition,
    /// The file's bytes exactly as they are on disk.
    pub bytes: Vec<u8>,
}

/// Why a file could not be read.
#[derive(Debug, thiserror::Error)]
pub enum WorkflowFileError {
    #[error("the workflow file {path} could not be read: {source}")]
    Io { path: PathBuf, source: io::Error },
    #[error("the workflow file {path} does not parse: {why}")]
    Parse { path: PathBuf, why: String },
    #[error("the workflow file {path} says its id is {found}")]
    WrongId { path: PathBuf, found: String },
}

/// The `workflows/` folder of one home.
#[derive(Debug, Clone)]
pub struct WorkflowFiles {
    dir: PathBuf,
}

impl WorkflowFiles {
    pub fn new(home: &Path) -> Self {
        WorkflowFiles {
            dir: home.join(FOLDER),
        }
    }

    fn path_of(&self, id: &str) -> PathBuf {
        self.dir.join(format!("{id}.json"))
    }

    /// Every definition file that parses, by id. A file that does not is
    /// skipped with one warning.
    pub fn list(&self) -> Vec<StoredWorkflow> {
        let Ok(entries) = fs::read_dir(&self.dir) else {
            return Vec::new();
        };
        let mut ids: Vec<String> = entries
            .flatten()
            .filter_map(|entry| {
                let name = entry.file_name().into_string().ok()?;
                let id = name.strip_suffix(".json")?;
                (name != PROJECT_FILE && is_workflow_id(id)).then(|| id.to_owned())
            })
            .collect();
        ids.sort();
        ids.into_iter()
            .filter_map(|id| match self.read(&id) {
                Ok(found) => found,
                Err(error) => {
                    tracing::warn!("skipping a workflow file: {error}");
                    None
                }
            })
            .collect()
    }

    /// The definition `id`, or `None` when there is no such file.
    pub fn read(&self, id: &str) -> Result<Option<StoredWorkflow>, WorkflowFileError> {
        if !is_workflow_id(id) || id == "project" {
            return Ok(None);
        }
        let path = self.path_of(id);
        let bytes = match fs::read(&path) {
            Ok(bytes) => bytes,
            Err(error) if error.kind() == io::ErrorKind::NotFound => return Ok(None),
            Err(source) => return Err(WorkflowFileError::Io { path, source }),
        };
        let definition = parse_definition(&bytes).map_err(|why| WorkflowFileError::Parse {
            path: path.clone(),
            why,
        })?;
        if definition.id != id {
            return Err(WorkflowFileError::WrongId {
                path,
                found: definition.id,
            });
        }
        Ok(Some(StoredWorkflow { definition, bytes }))
    }

    /// Writes `bytes` as `<id>.json` when they differ from the file's;
    /// answers whether it wrote.
    pub fn write(&self, id: &str, bytes: &[u8]) -> io::Result<bool> {
        if !is_workflow_id(id) || id == "project" {
            return Err(io::Error::other(format!(
                "{id:?} is not a workflow file name"
            )));
        }
        write_if_changed(&self.dir, &self.path_of(id), bytes)
    }

    /// The project's default workflow id, if one was set.
    pub fn default_id(&self) -> Option<String> {
        let bytes = fs::read(self.dir.join(PROJECT_FILE)).ok()?;
        let value: Value = serde_json::from_slice(&bytes).ok()?;
        value.get("default")?.as_str().map(str::to_owned)
    }

    /// Records `id` as the project's default; answers whether it wrote.
    pub fn set_default(&self, id: &str) -> io::Result<bool> {
        let mut bytes =
            serde_json::to_vec_pretty(&json!({"default": id})).map_err(io::Error::other)?;
        bytes.push(b'\n');
        write_if_changed(&self.dir, &self.dir.join(PROJECT_FILE), &bytes)
    }
}

fn write_if_changed(dir: &Path, path: &Path, bytes: &[u8]) -> io::Result<bool> {
    match fs::read(path) {
        Ok(existing) if existing == bytes => return Ok(false),
        Ok(_) => {}
        Err(error) if error.kind() == io::ErrorKind::NotFound => {}
        Err(error) => return Err(error),
    }
    crate::private::private_dirs(dir)?;
    atomic_write(path, bytes)?;
    Ok(true)
}

/// `workflow-authors.json`: which Bot saved each workflow (#1544, #1582),
/// kept beside the definitions so their canonical bytes stay their own. A
/// missing or unreadable file reads as no authors.
pub fn read_authors(home: &Path) -> serde_json::Map<String, Value> {
    fs::read(home.join(AUTHORS_FILE))
        .ok()
        .and_then(|bytes| serde_json::from_slice(&bytes).ok())
        .unwrap_or_default()
}

/// Rewrites `workflow-authors.json` atomically.
pub fn write_authors(home: &Path, authors: &serde_json::Map<String, Value>) -> io::Result<()> {
    let mut bytes = serde_json::to_vec_pretty(authors).map_err(io::Error::other)?;
    bytes.push(b'\n');
    atomic_write(&home.join(AUTHORS_FILE), &bytes)
}

const AUTHORS_FILE: &str = "workflow-authors.json";

#[cfg(test)]
mod tests {
    use super::*;
    use flybot_core::workflow::canonical::workflow_bytes;
    use flybot_core::workflow::presets::preset;

    fn files() -> (tempfile::TempDir, WorkflowFiles) {
        let dir = tempfile::tempdir().unwrap();
        let files = WorkflowFiles::new(dir.path());
        (dir, files)
    }

    #[test]
    /// Rule #1299.
    fn write_only_when_bytes_change() {
        let (_dir, files) = files();
        let mut def = preset("blank").unwrap();
        def.id = "mine".into();
        let bytes = workflow_bytes(&def);
        assert!(files.write("mine", &bytes).unwrap());
        assert!(!files.write("mine", &bytes).unwrap());
        let stored = files.read("mine").unwrap().unwrap();
        assert_eq!((stored.definition, stored.bytes), (def, bytes));
    }

    #[test]
    /// Rule #1299.
    fn a_file_that_does_not_parse_is_skipped() {
        let (dir, files) = files();
        let mut def = preset("blank").unwrap();
        def.id = "good".into();
        files.write("good", &workflow_bytes(&def)).unwrap();
        fs::write(dir.path().join("workflows/bad.json"), b"{not json").unwrap();
        fs::write(
            dir.path().join("workflows/other.json"),
            workflow_bytes(&def),
        )
        .unwrap();
        files.set_default("good").unwrap();
        let listed: Vec<String> = files.list().into_iter().map(|w| w.definition.id).collect();
        assert_eq!(listed, ["good"]);
        assert_eq!(files.default_id().as_deref(), Some("good"));
    }

    #[test]
    /// Rule #1299.
    fn no_folder_lists_nothing() {
        let (_dir, files) = files();
        assert!(files.list().is_empty());
        assert!(files.read("absent").unwrap().is_none());
        assert!(files.write("project", b"{}").is_err());
    }
}
