//! `ToolEnv`: the host's services a turn's tools reach, one typed entry per
//! tool family (the team tools' `TeamAccess`, `track_tasks`'s `TaskAccess`,
//! the workflow, memory, schedule and secrets tools' own). A family asks
//! for its own service by type and gets the refusal it names when the turn
//! runs without one (a unit test of another family, a tool outside a host);
//! `ToolContext` never lists the families. The host builds the whole
//! environment in one expression.

use super::ToolError;
use std::any::{Any, TypeId};
use std::collections::HashMap;
use std::sync::Arc;

/// The services, keyed by the service's type. Cheap to clone.
#[derive(Clone, Default)]
pub struct ToolEnv(Arc<HashMap<TypeId, Arc<dyn Any + Send + Sync>>>);

impl ToolEnv {
    /// The same environment with `service` as the one `S` (replacing any).
    pub fn with<S: ?Sized + Send + Sync + 'static>(self, service: Arc<S>) -> ToolEnv {
        let mut map = Arc::unwrap_or_clone(self.0);
        map.insert(TypeId::of::<Arc<S>>(), Arc::new(service));
        ToolEnv(Arc::new(map))
    }

    /// The service `S`, when the host gave one.
    pub fn get<S: ?Sized + Send + Sync + 'static>(&self) -> Option<&Arc<S>> {
        self.0
            .get(&TypeId::of::<Arc<S>>())
            .and_then(|entry| entry.downcast_ref::<Arc<S>>())
    }

    /// The service `S`, or the refusal `missing` (one sentence naming what
    /// is not available here).
    pub fn service<S: ?Sized + Send + Sync + 'static>(
        &self,
        missing: &str,
    ) -> Result<&Arc<S>, ToolError> {
        self.get::<S>()
            .ok_or_else(|| ToolError::Refused(missing.to_owned()))
    }
}

impl std::fmt::Debug for ToolEnv {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "ToolEnv({} services)", self.0.len())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    trait Greeter: Send + Sync {
        fn hello(&self) -> &'static str;
    }
    struct En;
    impl Greeter for En {
        fn hello(&self) -> &'static str {
            "hello"
        }
    }
    trait Other: Send + Sync {}

    #[test]
    fn a_family_finds_its_own_service_and_another_family_gets_its_refusal() {
        let env = ToolEnv::default().with::<dyn Greeter>(Arc::new(En));
        let greeter = env.service::<dyn Greeter>("Greeting is not available here.");
        assert_eq!(greeter.map(|g| g.hello()).ok(), Some("hello"));
        let other = env.service::<dyn Other>("Other is not available here.");
        assert!(
            matches!(other, Err(ToolError::Refused(why)) if why == "Other is not available here.")
        );
        assert!(ToolEnv::default().get::<dyn Greeter>().is_none());
    }
}
