//! The tools one Session offers: the registered tools with their completed
//! schemas (computed once), and the Session's mask. `guard` refuses a call,
//! `restrict` hides a tool from the list the model sees; a mask that cannot
//! be rebuilt keeps the previous one (#1271), so the list never widens by
//! itself.

use super::{DynTool, ToolContext, ToolError, ToolResult};
use crate::model::ToolSpec;
use std::collections::{BTreeMap, BTreeSet};
use std::sync::Arc;

/// A Session's mask: names the guard refuses, names hidden from the list.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Mask {
    /// Calls to these names are refused with the sentence given.
    pub guard: BTreeMap<String, String>,
    /// These names are not offered to the model.
    pub restrict: BTreeSet<String>,
}

/// A registered tool with its spec, built once.
struct Entry {
    tool: Arc<dyn DynTool>,
    spec: ToolSpec,
}

/// `tool` with its spec, keyed by its name.
fn entry(tool: Arc<dyn DynTool>) -> (String, Arc<Entry>) {
    let spec = ToolSpec {
        name: tool.name().to_owned(),
        description: tool.description().to_owned(),
        parameters: tool.parameters().into(),
    };
    (spec.name.clone(), Arc::new(Entry { tool, spec }))
}

/// The tools a Session offers. Cheap to clone.
#[derive(Clone, Default)]
pub struct ToolSet {
    tools: Arc<BTreeMap<String, Arc<Entry>>>,
    mask: Mask,
}

/// Why a mask rebuild failed; the previous mask stays (#1271).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("the tool mask could not be rebuilt: {0}")]
pub struct MaskError(pub String);

impl ToolSet {
    /// A set of `tools`; a later tool with the same name replaces an earlier.
    pub fn new(tools: impl IntoIterator<Item = Arc<dyn DynTool>>) -> ToolSet {
        ToolSet {
            tools: Arc::new(tools.into_iter().map(entry).collect()),
            mask: Mask::default(),
        }
    }

    /// The same tools with `tools` added (replacing any of the same name).
    /// The tools already here keep their specs: nothing is built again.
    pub fn with(&self, tools: impl IntoIterator<Item = Arc<dyn DynTool>>) -> ToolSet {
        let mut added = tools.into_iter().map(entry).peekable();
        if added.peek().is_none() {
            return self.clone();
        }
        let mut all = (*self.tools).clone();
        all.extend(added);
        ToolSet {
            tools: Arc::new(all),
            mask: self.mask.clone(),
        }
    }

    pub fn mask(&self) -> &Mask {
        &self.mask
    }

    /// Rebuilds the mask from `compute`. A name the set does not serve cannot
    /// be restricted; then, or when `compute` fails, the previous mask stays
    /// and the error says why (#1271: a list that widens by itself is wrong).
    pub fn rebuild_mask(
        &mut self,
        compute: impl FnOnce() -> Result<Mask, MaskError>,
    ) -> Result<(), MaskError> {
        let next = compute()?;
        if let Some(unknown) = next
            .restrict
            .iter()
            .find(|name| !self.tools.contains_key(name.as_str()))
        {
            return Err(MaskError(format!("no tool named {unknown} to hide")));
        }
        self.mask = next;
        Ok(())
    }

    /// The specs the model sees: every tool the mask does not hide, by name.
    pub fn specs(&self) -> Vec<ToolSpec> {
        self.offered().map(|entry| entry.spec.clone()).collect()
    }

    /// The names of the tools the model sees, in order.
    pub fn offered_names(&self) -> Vec<String> {
        self.offered()
            .map(|entry| entry.spec.name.clone())
            .collect()
    }

    fn offered(&self) -> impl Iterator<Item = &Arc<Entry>> {
        self.tools
            .values()
            .filter(|entry| !self.mask.restrict.contains(entry.spec.name.as_str()))
    }

    /// The tool `name` if the model may call it now: hidden and unknown
    /// names answer the same refusal, guarded ones the guard's sentence.
    pub fn resolve(&self, name: &str) -> Result<Arc<dyn DynTool>, ToolError> {
        if let Some(sentence) = self.mask.guard.get(name) {
            return Err(ToolError::Refused(sentence.clone()));
        }
        match self.tools.get(name) {
            Some(entry) if !self.mask.restrict.contains(name) => Ok(entry.tool.clone()),
            Some(_) | None => Err(ToolError::Refused(format!(
                "There is no tool named {name} here; use one of the tools listed."
            ))),
        }
    }

    /// Resolves and runs one call.
    pub async fn call(&self, ctx: &ToolContext, name: &str, arguments: &str) -> ToolResult {
        let tool = self.resolve(name)?;
        tool.call_json(ctx, arguments).await
    }

    pub fn len(&self) -> usize {
        self.tools.len()
    }

    pub fn is_empty(&self) -> bool {
        self.tools.is_empty()
    }
}

#[cfg(test)]
mod tests {
    use super::super::Tool;
    use super::*;
    use schemars::JsonSchema;
    use serde::Deserialize;

    struct Echo;
    /// What to echo.
    #[derive(Deserialize, JsonSchema)]
    struct EchoArgs {
        /// The text to answer.
        text: String,
    }
    impl Tool for Echo {
        type Args = EchoArgs;
        fn name(&self) -> &'static str {
            "echo"
        }
        fn description(&self) -> &'static str {
            "Answers its text."
        }
        async fn call(&self, _ctx: &ToolContext, args: EchoArgs) -> ToolResult {
            Ok(args.text)
        }
    }
    struct Other;
    impl Tool for Other {
        type Args = EchoArgs;
        fn name(&self) -> &'static str {
            "other"
        }
        fn description(&self) -> &'static str {
            "Another."
        }
        async fn call(&self, _ctx: &ToolContext, _args: EchoArgs) -> ToolResult {
            Ok("other".into())
        }
    }

    fn set() -> ToolSet {
        ToolSet::new([Arc::new(Echo) as Arc<dyn DynTool>, Arc::new(Other)])
    }

    fn ctx() -> ToolContext {
        ToolContext::new("session-1", "bot-1", std::env::temp_dir())
    }

    #[tokio::test]
    async fn a_call_parses_its_arguments_and_runs() {
        let set = set();
        assert_eq!(
            set.call(&ctx(), "echo", r#"{"text":"hi"}"#).await,
            Ok("hi".into())
        );
        let bad = set.call(&ctx(), "echo", r#"{"txt":"hi"}"#).await;
        assert!(matches!(bad, Err(ToolError::Invalid(_))), "{bad:?}");
    }

    #[tokio::test]
    async fn guard_refuses_and_restrict_hides() {
        let mut set = set();
        set.rebuild_mask(|| {
            Ok(Mask {
                guard: [("echo".to_owned(), "Not here.".to_owned())].into(),
                restrict: ["other".to_owned()].into(),
            })
        })
        .unwrap();
        let names: Vec<String> = set.specs().into_iter().map(|s| s.name).collect();
        assert_eq!(names, vec!["echo"]);
        assert_eq!(
            set.call(&ctx(), "echo", r#"{"text":"x"}"#).await,
            Err(ToolError::Refused("Not here.".into()))
        );
        let hidden = set.call(&ctx(), "other", r#"{"text":"x"}"#).await;
        let unknown = set.call(&ctx(), "nope", r#"{"text":"x"}"#).await;
        assert!(matches!(hidden, Err(ToolError::Refused(_))));
        assert_eq!(
            hidden.unwrap_err().to_string().replace("other", "X"),
            unknown.unwrap_err().to_string().replace("nope", "X")
        );
    }

    #[test]
    fn a_failed_rebuild_keeps_the_previous_mask() {
        let mut set = set();
        let first = Mask {
            guard: BTreeMap::new(),
            restrict: ["other".to_owned()].into(),
        };
        set.rebuild_mask(|| Ok(first.clone())).unwrap();
        assert!(set.rebuild_mask(|| Err(MaskError("boom".into()))).is_err());
        assert_eq!(set.mask(), &first);
        let unknown = Mask {
            guard: BTreeMap::new(),
            restrict: ["missing".to_owned()].into(),
        };
        assert!(set.rebuild_mask(|| Ok(unknown)).is_err());
        assert_eq!(set.mask(), &first);
        assert_eq!(set.specs().len(), 1);
    }
}
