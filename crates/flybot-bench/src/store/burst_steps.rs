//! Where 32 changes at once spend their time (issue 38): the median time
//! from a round's start to each step of its changes' way to disk
//! (`flybot_store::burst_marks`), and how many rounds went in one batch.

use flybot_store::burst_marks::{Burst, Step};
use serde::Serialize;

/// The rounds' steps, summed up.
#[derive(Debug, Clone, Serialize)]
pub struct BurstSteps {
    /// Each step's name and its median microseconds from the round's start
    /// (`None`: no round reached it).
    pub median_us: Vec<(&'static str, Option<u64>)>,
    /// Rounds whose 32 lines were written in one batch, of `rounds`.
    pub one_batch: usize,
    pub rounds: usize,
}

impl BurstSteps {
    pub fn of(bursts: &[Burst]) -> BurstSteps {
        let median_us = Step::ALL
            .iter()
            .enumerate()
            .map(|(i, step)| {
                let mut at: Vec<u64> = bursts.iter().filter_map(|b| b.at_us[i]).collect();
                at.sort_unstable();
                (step.name(), at.get(at.len() / 2).copied())
            })
            .collect();
        BurstSteps {
            median_us,
            one_batch: bursts.iter().filter(|b| b.batches == 1).count(),
            rounds: bursts.len(),
        }
    }

    /// One line: each step's median, then the batches.
    pub fn line(&self) -> String {
        let steps: Vec<String> = self
            .median_us
            .iter()
            .map(|(name, at)| match at {
                Some(us) => format!("{name} {us}"),
                None => format!("{name} -"),
            })
            .collect();
        format!(
            "{} | one batch in {} of {} rounds",
            steps.join(" | "),
            self.one_batch,
            self.rounds
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_steps_are_medians_in_order_and_one_batch_rounds_are_counted() {
        let burst = |at: [u64; 6], batches| Burst {
            at_us: at.map(Some),
            batches,
        };
        let steps = BurstSteps::of(&[
            burst([1, 10, 12, 20, 300, 320], 1),
            burst([3, 30, 33, 40, 500, 530], 2),
            burst([2, 20, 22, 30, 400, 420], 1),
        ]);
        let medians: Vec<Option<u64>> = steps.median_us.iter().map(|s| s.1).collect();
        assert_eq!(
            medians,
            [2, 20, 22, 30, 400, 420].map(Some).to_vec(),
            "each step's middle value"
        );
        assert_eq!((steps.one_batch, steps.rounds), (2, 3));
        assert_eq!(
            steps.line(),
            "first change begun 2 | last line queued 20 | handed to the journal thread 22 | journal thread has them 30 | written and synced 400 | waiters answered 420 | one batch in 2 of 3 rounds"
        );
    }
}
