//! `flybot-bench workflow`: what `validate` and `plan_job` cost on a
//! 200-node definition with 400 edges and 1,000 cards on the board (goal:
//! under 5 ms each). Prints median and p99; nothing asserts a duration.

use flybot_core::workflow::artifact::{Artifact, Fact, Facts, parse_spec};
use flybot_core::workflow::plan::{PlanCard, PlanRequest, plan_job};
use flybot_core::workflow::validate::validate;
use flybot_protocol::workflow::{WorkflowDefinition, WorkflowNode};
use serde_json::json;
use std::collections::BTreeSet;
use std::time::{Duration, Instant};

const NODES: usize = 200;
const EDGES: usize = 400;
const CARDS: usize = 1_000;
const REPEATS: usize = 200;

/// A chain where each node also reads from further back, until 400 edges.
pub fn big_definition() -> WorkflowDefinition {
    let out = |i: usize| format!("text:o{i}");
    let mut inputs: Vec<Vec<usize>> = vec![Vec::new(); NODES];
    let mut edges = 0;
    'fill: for divisor in 1..NODES {
        for (i, list) in inputs.iter_mut().enumerate().skip(1) {
            if edges == EDGES {
                break 'fill;
            }
            let from = if divisor == 1 { i - 1 } else { i / divisor };
            if from < i && !list.contains(&from) {
                list.push(from);
                edges += 1;
            }
        }
    }
    let mut consumed: BTreeSet<usize> = BTreeSet::new();
    let mut edge_rows = Vec::new();
    let nodes = (0..NODES)
        .map(|i| {
            let mut ins: Vec<String> = inputs[i].iter().map(|f| out(*f)).collect();
            for from in &inputs[i] {
                consumed.insert(*from);
                edge_rows.push(format!("n{from}.{} -> n{i}.{}", out(*from), out(*from)));
            }
            if i == 0 {
                ins.push("text:brief".to_owned());
            }
            WorkflowNode {
                id: format!("n{i}"),
                role: format!("Role{}", i % 7),
                column: None,
                inputs: Some(ins),
                outputs: Some(vec![out(i)]),
                guards: None,
                refusal: None,
                holder: None,
                tools: None,
            }
        })
        .collect();
    let deliverables: Vec<String> = (0..NODES)
        .filter(|i| !consumed.contains(i))
        .map(out)
        .collect();
    WorkflowDefinition {
        id: "bench".to_owned(),
        name: "Bench".to_owned(),
        description: None,
        inputs: Some(vec!["text:brief".to_owned()]),
        deliverables: Some(deliverables),
        nodes,
        edges: edge_rows,
        loops: None,
    }
}

fn cards_and_facts() -> (Vec<PlanCard>, Facts) {
    let mut cards = Vec::with_capacity(CARDS);
    for i in 0..CARDS {
        let (parent, node) = if i < 120 {
            ("job-1".to_owned(), format!("n{i}"))
        } else {
            (format!("job-{}", i % 40 + 2), format!("n{}", i % NODES))
        };
        cards.push(PlanCard {
            id: format!("card-{i}"),
            parent_id: Some(parent),
            workflow: Some("bench".to_owned()),
            node: Some(node),
            done: i < 100,
        });
    }
    let mut facts = Facts::new();
    facts.read("text:brief", "b1", json!({}));
    for i in 0..150 {
        let Ok(spec) = parse_spec(&format!("text:o{i}")) else {
            continue;
        };
        let current = (i % 30 == 0).then(|| "moved".to_owned());
        facts.insert(Fact::Read {
            artifact: Artifact {
                spec,
                revision: format!("r{i}"),
                value: json!({}),
            },
            current,
        });
    }
    (cards, facts)
}

fn figures(mut samples: Vec<Duration>) -> (f64, f64) {
    samples.sort();
    let ms = |d: Duration| d.as_secs_f64() * 1000.0;
    let median = samples[samples.len() / 2];
    let p99 = samples[(samples.len() * 99 / 100).min(samples.len() - 1)];
    (ms(median), ms(p99))
}

pub fn run() -> anyhow::Result<()> {
    let def = big_definition();
    if let Err(problems) = validate(&def, None) {
        anyhow::bail!(
            "the bench definition does not validate: {}",
            problems[0].sentence()
        );
    }
    let (cards, facts) = cards_and_facts();
    let mut validate_times = Vec::with_capacity(REPEATS);
    let mut plan_times = Vec::with_capacity(REPEATS);
    let mut opened = 0;
    for _ in 0..REPEATS {
        let start = Instant::now();
        let outcome = validate(&def, None);
        validate_times.push(start.elapsed());
        std::hint::black_box(outcome).ok();
        let start = Instant::now();
        let plan = plan_job(PlanRequest {
            definition: &def,
            job_id: "job-1",
            cards: &cards,
            facts: &facts,
            hold: None,
        });
        plan_times.push(start.elapsed());
        opened = std::hint::black_box(plan).open.len();
    }
    let (v_median, v_p99) = figures(validate_times);
    let (p_median, p_p99) = figures(plan_times);
    println!(
        "workflow bench: {NODES} nodes, {} edges, {CARDS} cards, {REPEATS} repeats",
        def.edges.len()
    );
    println!("validate  median {v_median:.3} ms  p99 {v_p99:.3} ms  (goal < 5 ms)");
    println!("plan_job  median {p_median:.3} ms  p99 {p_p99:.3} ms  (goal < 5 ms; opens {opened})");
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bench_definition_has_the_stated_shape_and_validates() {
        let def = big_definition();
        assert_eq!((def.nodes.len(), def.edges.len()), (NODES, EDGES));
        validate(&def, None).unwrap();
        assert_eq!(cards_and_facts().0.len(), CARDS);
    }
}
