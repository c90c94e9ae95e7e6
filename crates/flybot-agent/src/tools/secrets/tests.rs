//! The secrets tools answer names and reasons, never values (#651).

use super::*;
use flybot_core::secrets::Withheld;

struct Keys(ShellSecrets);

impl SecretAccess for Keys {
    fn shell(&self, _bot_id: &str) -> ShellSecrets {
        self.0.clone()
    }
}

fn ctx() -> ToolContext {
    let mut ctx = ToolContext::new("session-1", "bot-1", std::env::temp_dir());
    ctx.env = ctx
        .env
        .with::<dyn SecretAccess>(Arc::new(Keys(ShellSecrets {
            given: vec![("GITHUB_TOKEN".into(), "ghp_the_value".into())],
            withheld: vec![("OPS_KEY".into(), Withheld::NotInScope)],
        })));
    ctx
}

#[tokio::test]
/// Rule #651.
async fn list_secrets_names_the_keys_and_the_withheld_reasons_never_a_value() {
    let text = ListSecrets.call(&ctx(), ListSecretsArgs {}).await.unwrap();
    assert!(text.contains("GITHUB_TOKEN: you may use it as $FLYBOT_SECRET_GITHUB_TOKEN"));
    assert!(text.contains("OPS_KEY: withheld (not-in-scope)"));
    assert!(text.contains("A friend's Bot never gets"));
    assert!(!text.contains("ghp_the_value"));
}

#[tokio::test]
/// Rule #651.
async fn request_secret_says_use_it_why_not_or_ask_the_owner() {
    let ask = |name: &str| RequestSecretArgs {
        name: name.into(),
        why: None,
    };
    let yes = RequestSecret
        .call(&ctx(), ask("GITHUB_TOKEN"))
        .await
        .unwrap();
    assert!(yes.starts_with("You may use it"), "{yes}");
    assert!(!yes.contains("ghp_the_value"));
    let no = RequestSecret
        .call(&ctx(), ask("OPS_KEY"))
        .await
        .unwrap_err();
    assert!(no.to_string().contains("(not-in-scope)"), "{no}");
    let none = RequestSecret
        .call(&ctx(), ask("NPM_TOKEN"))
        .await
        .unwrap_err();
    assert!(
        none.to_string().contains("Ask your owner to save it"),
        "{none}"
    );
    let nohost = ToolContext::new("s", "b", std::env::temp_dir());
    assert!(ListSecrets.call(&nohost, ListSecretsArgs {}).await.is_err());
}
