//! `flybot experience lookup|check|add` (#874 Step 2): the experience
//! library from the command line. `--root` defaults to the checkout's
//! `dev/experience`; a root that does not exist reads as no lessons.

use anyhow::bail;
use clap::{Args, Subcommand};
use flybot_store::experience::{
    EXPERIENCE_DIR, ExperienceScope, Lesson, add_experience, check_experience, lookup_experience,
};
use std::path::PathBuf;

#[derive(Args)]
pub struct RootArg {
    /// The library's folder.
    #[arg(long, default_value = EXPERIENCE_DIR)]
    root: PathBuf,
}

#[derive(Subcommand)]
pub enum ExperienceCommand {
    /// Print the lessons of a repo and/or tech stack as JSON, newest first.
    Lookup {
        #[command(flatten)]
        root: RootArg,
        /// `owner/name`.
        #[arg(long)]
        repo: Option<String>,
        #[arg(long)]
        tech_stack: Option<String>,
        /// Keeps lessons whose id, trigger, wrong or right contain it.
        #[arg(long)]
        query: Option<String>,
    },
    /// Check every file of the library: path and fields must agree.
    Check {
        #[command(flatten)]
        root: RootArg,
    },
    /// Write one new lesson; an existing one is never overwritten.
    Add {
        #[command(flatten)]
        root: RootArg,
        #[arg(long)]
        id: String,
        /// `owner/name` for a repo lesson; leave out for a shared one.
        #[arg(long)]
        repo: Option<String>,
        /// The shared lesson's stack, or a repo lesson's tags (repeat).
        #[arg(long = "tech-stack")]
        tech_stacks: Vec<String>,
        #[arg(long)]
        trigger: String,
        #[arg(long)]
        wrong: String,
        #[arg(long)]
        right: String,
        /// `YYYY-MM-DD`.
        #[arg(long)]
        date: String,
    },
}

pub fn run(command: ExperienceCommand) -> anyhow::Result<()> {
    match command {
        ExperienceCommand::Lookup {
            root,
            repo,
            tech_stack,
            query,
        } => {
            let scope = ExperienceScope { repo, tech_stack };
            let lessons = lookup_experience(&root.root, &scope, query.as_deref());
            say!("{}", serde_json::to_string_pretty(&lessons)?);
            Ok(())
        }
        ExperienceCommand::Check { root } => {
            let problems = check_experience(&root.root);
            for problem in &problems {
                warn!("{problem}");
            }
            if !problems.is_empty() {
                bail!("{} lesson file(s) need fixing", problems.len());
            }
            say!("the experience library at {} checks", root.root.display());
            Ok(())
        }
        ExperienceCommand::Add {
            root,
            id,
            repo,
            tech_stacks,
            trigger,
            wrong,
            right,
            date,
        } => {
            let stack = match (&repo, tech_stacks.as_slice()) {
                (None, [one]) => Some(one.clone()),
                (None, _) => bail!("a shared lesson names exactly one --tech-stack"),
                (Some(_), _) => None,
            };
            let lesson = Lesson {
                id,
                tech_stacks: if repo.is_some() {
                    tech_stacks
                } else {
                    Vec::new()
                },
                repo,
                trigger,
                wrong,
                right,
                date,
            };
            let path = add_experience(&root.root, stack.as_deref(), &lesson)?;
            say!("wrote {}", path.display());
            Ok(())
        }
    }
}
