"""``python -m envs.variance RUN``: whose noise is the spread of pass^k, the agent's, the simulated
user's or the judge's.

A run's repeats vary everything at once: the situations drawn from the episode seed, the simulated
user's sampling, the agent's sampling. This command adds designed repeats beside the run (a new
folder; the run's own files are only read) and splits the spread:

* **user arm** (``design.play_arms``): per task, the first ``--bases`` original episodes are bases;
  each is replayed ``--replays`` times with the situations (the episode seed) and the agent's seed
  fixed, and the user's model given a new seed each time (``EpisodeId.user_seed``). The agent is
  held by the response cache: the same agent request gets the same reply (``envs.llm.cache``;
  a fresh cache in the new folder unless ``--cache`` names one). The within-base variance of
  success is what the user leaves. A scripted user has no sampling: zero by construction, the
  arm is not played. A slipping scripted role (``scripted...@slip=RATE``, ``envs.actors.slipping``)
  draws from its own role's seed, which the design varies like a model's: its known variance,
  p(1 - p) where the slip decides the outcome, is the instrument's known-answer check.
* **agent arm**: the same bases with the situations and the user's seed fixed (the user held by the
  cache in turn) and the agent's model given a new seed each replay (``EpisodeId.agent_seed``).
  The within-base variance is what the agent leaves; pass^k over these replays is pass^k with the
  user's share taken out, printed beside the plain one. A scripted agent is played too (it costs
  little: a deterministic agent makes every user request a cache hit) and measures zero.
* **judge** (``design.rejudge``): every original episode re-graded ``--rejudge`` times through
  ``envs.report.regrade.regrade_record`` with the transcript frozen, the judge given a new seed
  each time; per rule, the share of verdicts that differ from the recorded one. The checks are
  re-run the same way and flip zero times by construction (measured all the same). Verdicts do
  not enter the reward, so the judge's share of the outcome variance is zero.

Episodes are played by ``envs.episode.run_episode``, the runner's own loop, with the run's own
actors (``envs.actors.roles``). Figures are per-trial variances of the 0/1 success, meaned over
tasks, with 95% bootstrap intervals over tasks (``envs.variance.split``). The new folder holds
``variance.json``, ``design.jsonl`` (every designed episode with its arm, base and replay),
``rejudged.jsonl``, the run's ``config.json`` and ``episodes.jsonl`` copied, and ``summary.json``
(the run's summary with the ``variance`` block) and ``report.html``, so ``envs.compare`` reads
it like a run and uses the split when both sides have one.
"""
