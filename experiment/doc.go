// Package experiment holds the building blocks of `servecmp run`: the
// experiment file (one reviewable YAML file that describes an A/B
// comparison of two serving engines), the plan of steps it implies, the
// step store that makes a run resumable, and the launcher that starts and
// stops an engine servecmp manages itself.
//
// # The experiment file
//
// The file is YAML, read strictly: an unknown key, a duplicate key, a
// value of the wrong kind or a value out of range is an error that names
// the file and line, as in exp.yaml:7: runs: unknown key "cout"; every
// error found is reported, one per line. Durations are Go durations
// ("500ms", "90s", "5m") or a bare number of seconds. Paths are relative
// to the directory of the experiment file.
//
//	a:                             # engine A (required)
//	  url: http://127.0.0.1:8001   # required: base URL of the OpenAI-compatible server
//	  model: m                     # required: the served model name
//	  engine: vllm                 # optional: vllm, sglang, ...; detected when absent
//	  launch: "cmd arg 'two words'" # optional: servecmp starts the engine itself
//	  # contract fields, copied into the result's manifest (all optional):
//	  engine_version: "0.6.3"
//	  checkpoint_revision: abc123
//	  tokenizer: m
//	  gpu_type: H100
//	  gpu_count: 1                 # an integer
//	  topology: tp1
//	  memory_limit: 0.9
//	  compute_precision: bf16
//	  weight_precision: bf16
//	  kv_precision: fp8
//	  quantization: none
//	  attention_backend: flashinfer
//	  graph_mode: cuda-graphs
//	  cache_policy: prefix-cache
//	  extra: {key: value}          # free-form manifest entries
//	  metrics_url: none            # Prometheus endpoint scraped in sweeps and runs: a URL, or none;
//	                               # default url + /metrics, left out when the detected engine has none
//	  trace_dir: traces-a          # where the engine's profiler writes (with profile); default:
//	                               # the profile step's folder, sent as SGLang's output_dir
//	  gpu_metrics_url: http://127.0.0.1:9400/metrics  # GPU exporter(s), one per node, or a list
//	                               # of them, or none (the default): energy and GPU telemetry
//	  gpus: "0,1"                  # the engine's GPUs on them: indices or UUIDs (default: all)
//	b: {url: "http://127.0.0.1:8002", model: m}  # engine B (required), the same keys
//	intentional: [quantization]    # declared differences (compare --intentional)
//	workload:                      # exactly one of file, random and trace (required)
//	  file: workload.jsonl         # a frozen workload (servecmp workload ...)
//	  random:                      # or the generator's settings, materialised once
//	    num: 64                    # required, >= 1
//	    input_len: 128             # required: N, A:B, normal:M,S, lognormal:MU,S, exp:M
//	    output_len: 32             # required, same forms
//	    seed: 1                    # default 0
//	    vocab: 32000               # default 32000
//	    prefix_len: 0              # shared prefix tokens, default 0
//	    fixed_length: true         # ask the server for exactly output_len tokens
//	    request_rate: 0            # arrival offsets at this mean rate (req/s); 0 = none
//	    burstiness: 1              # gamma shape of the gaps, > 0
//	    temperature: 0             # always sent
//	    top_p: 0.9                 # sent only when given, in (0, 1]
//	    top_k: 40                  # sent only when given, >= -1
//	    request_seeds: true        # per-request sampling seeds when temperature > 0
//	    tokenizer: tokenizer.json  # tokenizer.json or GGUF file: real text of exact lengths under it
//	    prompt: text               # ids (default without tokenizer) | text | chat (default with one)
//	  trace:                       # or a request trace to replay (servecmp workload trace)
//	    file: conversation_trace.jsonl  # required: Mooncake JSONL, Parquet or gzip; Azure CSV
//	    format: mooncake           # required: mooncake | azure
//	    block_size: 512            # tokens per hash id, default 512
//	    time_scale: 1              # arrival offsets = trace time × this, default 1
//	    start: 0s                  # leave out the trace's first part
//	    limit: 0                   # keep at most N requests; 0 = all
//	    seed: 0                    # seeds the prompts' token ids
//	    vocab: 32000               # token ids in [3, vocab)
//	    tokenizer: tokenizer.json  # optional: text prompts of exact length instead of ids
//	    fixed_length: true
//	    temperature: 0
//	check:                         # pre-flight check (optional; defaults shown)
//	  requests: 8                  # >= 1: the first N requests, temperature 0
//	  on_mismatch: stop            # stop | continue
//	sweep:                         # one sweep per engine (optional)
//	  concurrency: [1, 4, 16]      # or rate: [1, 2.5, 5] (requests/s); increasing
//	  warmup: 0                    # warmup requests before each step
//	  reset_prefix_cache: false
//	runs:                          # the repeated measured runs (required)
//	  count: 3                     # >= 1, default 3
//	  concurrency: 16              # exactly one of concurrency (>= 1) and rate (> 0); with a
//	                               # trace workload: concurrency or neither (its own schedule)
//	  order: interleaved           # interleaved (A1 B1 B2 A2 A3 B3 ...) | blocked (A1 A2 ... B1 B2 ...)
//	  warmup: 0
//	  reset_prefix_cache: false
//	  shards: 1                    # local processes sending each run's load (1 to 256), started
//	                               # together and merged; concurrency/rate stay the total
//	profile:                       # a bounded profile per engine under the runs' load (optional)
//	  after: 10s                   # delay from the start of the measured load to the capture, default 5s
//	  for: 5s                      # capture length; or
//	  steps: 50                    # engine steps to capture (exactly one of for and steps)
//	  activities: [CPU, GPU]       # SGLang's profiler activities (default CPU, GPU; CUDA_PROFILER under nsys)
//	slo:                           # service-level objective, both sides alike (optional)
//	  ttft_ms: "p99<=500"          # a distribution threshold: pNN or mean, then <= or <, then ms
//	  tpot_ms: ["p50<=20", "p99<=50"]  # several thresholds on one metric
//	  e2e_ms: "<=2000"             # a per-request threshold
//	alpha: 0.05                    # significance level of the verdicts, in (0, 1)
//
// The metrics an SLO may name are ttft_ms, tpot_ms, itl_ms and e2e_ms;
// result.ParseThreshold defines the terms and benchmark's SLO doc how
// goodput, attainment and capacity follow from them.
//
// # Launch
//
// launch takes three forms:
//
//	launch: "servecmp serve-sim --addr 127.0.0.1:8002"   # a command line
//	launch: [servecmp, serve-sim, --addr, "127.0.0.1:8002"] # its words
//	launch:
//	  command: "servecmp serve-sim --addr 127.0.0.1:8002"  # either form
//	  ready_url: http://127.0.0.1:8002/health  # default: url + "/v1/models"
//	  ready_timeout: 5m                          # default 5m
//	  grace: 10s                                 # default 10s
//
// No shell runs the command: a command line is split into words at
// blanks, where '…' quotes literally, "…" quotes with \" and \\ as
// escapes, and a backslash outside quotes escapes the next character.
// Pipes, redirections, variables and globs mean nothing (write
// ["sh", "-c", "..."] to get a shell). The command runs in the
// experiment file's directory, in its own process group, with its
// stdout and stderr in files of the output directory. It is ready when a
// GET of ready_url answers 2xx; it is stopped with SIGTERM to its whole
// group, then SIGKILL once the grace period has passed. A program named
// servecmp is the running servecmp binary (LaunchOptions.Self).
//
// # Steps
//
// A plan is the ordered list of steps: check; sweep-a and sweep-b (with a
// sweep); the runs run-a-1, run-b-1, run-b-2, run-a-2, run-a-3, ...
// (interleaved and counterbalanced: every second pair starts with B, so
// that a drift over time favours neither side) or
// run-a-1, ..., run-b-1, ... (blocked); profile-a and profile-b, then
// analyze-a and analyze-b (with a profile); report.
// Each step has a key: the SHA-256 of the parts of the file it depends on,
// the workload's hash and the keys of the steps it builds on.
//
//   - check: engines a and b, check, workload.
//   - sweep-X: engine X, sweep, workload.
//   - run-X-i: engine X, runs (without count: raising the count keeps the
//     runs done), i, workload.
//   - profile-X: engine X, the runs' load, profile, X's trace_dir, workload.
//   - analyze-X: profile-X.
//   - report: intentional, slo, alpha, check.on_mismatch, runs.order
//     and every step above.
//
// Formatting, comments and key order do not enter a key; a changed value
// does. A step is done when its folder's step.json carries its key and the
// status complete; a step that is not done is redone, and so is every step
// that builds on one being redone.
//
// # Running
//
// Run executes a plan into an output directory (servecmp run): it
// materialises a random workload into workload.jsonl (rewritten only when
// it changed) or hashes the given file; keeps the steps Store.Todo leaves
// out, saying so; starts a launched engine before the first step to do
// that sends it requests and stops it after the last (logs in logs/);
// runs the check (check/check.json; a failing check stops the run unless
// on_mismatch is continue, and a kept failing check stops a rerun alike),
// the sweeps and runs (STEP/result.json and STEP/records.jsonl, with the
// SLO evaluated on every step) and the report: every result held to the
// experiment's SLO afresh from its records (result.ApplySLO, so that a
// changed slo redoes the report alone), compared, and written as
// report.json (compare's report plus RunInfo: the run order and every
// step's record) and, through RunOptions.Report, report.txt, the workbook
// and plots/. Outputs of an earlier report are removed before any step
// runs when the report is to be redone. With a profile block, each
// engine is then profiled under the runs' load (profile.Run: STEP/result.json
// with its profile block, STEP/records.jsonl), and its traces (those the
// profile step reported, else those in its trace directory) are analysed
// with the window's work, as analyze --work-from does
// (analyze-X/summary.json); the report gives both summaries to compare as
// layer 2. A profile or analyze step that fails (an engine without a
// profiler API fails before any request) is recorded as failed without
// stopping the run: the report comes out with layer 1 and a warning that
// layer 2 was not captured, and a rerun retries the failed steps. When
// the context ends, the step
// under way is marked incomplete, the launched engines are stopped and the
// error wraps ErrInterrupted.
//
// # Units and invariants
//
// Offered load is a concurrency (requests in flight, a whole number) or a
// rate (requests per second); SLO limits are milliseconds; durations are
// time.Duration; step times in step.json are RFC 3339 in UTC.
//
//   - An Experiment returned by Parse is valid as a whole: every field
//     checked, every default filled in; nothing is checked later.
//   - A step's outputs go to its own folder, and its step.json is written
//     atomically after them: a step.json saying complete never sits beside
//     half-written outputs. Begin empties the folder first.
//   - Plan is a pure function of the experiment and the workload hash.
//   - A launched engine runs in its own process group, and Stop leaves no
//     member of that group alive.
package experiment
