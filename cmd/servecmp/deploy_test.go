//go:build linux

package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"gopkg.in/yaml.v3"

	"github.com/servecmp/servecmp/benchmark/result"
)

// The recipes in deploy/ (docs/cluster.md): their manifests are checked
// for what Kubernetes and servecmp need, and every flow is run here with
// local processes in place of pods and Slurm tasks.

var deployDir, _ = filepath.Abs(filepath.Join("..", "..", "deploy"))

// manifest is one Kubernetes object of a recipe.
type manifest struct {
	APIVersion string `yaml:"apiVersion"`
	Kind       string `yaml:"kind"`
	Metadata   struct {
		Name string `yaml:"name"`
	} `yaml:"metadata"`
	Spec struct {
		CompletionMode string   `yaml:"completionMode"`
		Completions    *int     `yaml:"completions"`
		Parallelism    *int     `yaml:"parallelism"`
		BackoffLimit   *int     `yaml:"backoffLimit"`
		AccessModes    []string `yaml:"accessModes"`
		Template       struct {
			Spec struct {
				RestartPolicy string      `yaml:"restartPolicy"`
				Containers    []container `yaml:"containers"`
				Volumes       []struct {
					Name string `yaml:"name"`
					PVC  *struct {
						ClaimName string `yaml:"claimName"`
					} `yaml:"persistentVolumeClaim"`
				} `yaml:"volumes"`
			} `yaml:"spec"`
		} `yaml:"template"`
	} `yaml:"spec"`
}

type container struct {
	Name    string   `yaml:"name"`
	Image   string   `yaml:"image"`
	Command []string `yaml:"command"`
	Args    []string `yaml:"args"`
	Env     []struct {
		Name  string `yaml:"name"`
		Value string `yaml:"value"`
	} `yaml:"env"`
	VolumeMounts []struct {
		Name      string `yaml:"name"`
		MountPath string `yaml:"mountPath"`
	} `yaml:"volumeMounts"`
}

// readManifest reads the one object of deploy/kubernetes/name, strictly.
func readManifest(t *testing.T, name string) manifest {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(deployDir, "kubernetes", name))
	if err != nil {
		t.Fatal(err)
	}
	dec := yaml.NewDecoder(bytes.NewReader(b))
	var m manifest
	if err := dec.Decode(&m); err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	var more any
	if err := dec.Decode(&more); err != io.EOF {
		t.Fatalf("%s: more than one object (%v)", name, err)
	}
	return m
}

var varRef = regexp.MustCompile(`\$\(([A-Z_][A-Z0-9_]*)\)`)

// expand replaces Kubernetes' $(VAR) references in args from vars, and
// fails on a reference to a variable it lacks.
func expand(t *testing.T, args []string, vars map[string]string) []string {
	t.Helper()
	out := make([]string, len(args))
	for i, a := range args {
		out[i] = varRef.ReplaceAllStringFunc(a, func(ref string) string {
			name := varRef.FindStringSubmatch(ref)[1]
			v, ok := vars[name]
			if !ok {
				t.Fatalf("argument %q refers to $(%s), which is not set", a, name)
			}
			return v
		})
	}
	return out
}

// envOf is a container's env as a map, with what the Job controller adds
// to the pod of an Indexed Job.
func envOf(c container, index int) map[string]string {
	m := map[string]string{"JOB_COMPLETION_INDEX": strconv.Itoa(index)}
	for _, e := range c.Env {
		m[e.Name] = e.Value
	}
	return m
}

// TestDeployManifests: every manifest is one object with what its kind
// needs; the Jobs mount the shared claim, the Indexed ones use the
// completion index, the load Job runs every shard at once with --shard
// index/completions, and every servecmp command line parses with this
// servecmp's flags.
func TestDeployManifests(t *testing.T) {
	files, _ := filepath.Glob(filepath.Join(deployDir, "kubernetes", "*.yaml"))
	if len(files) != 5 {
		t.Fatalf("deploy/kubernetes holds %d manifests, want 5", len(files))
	}
	pvc := readManifest(t, "data-pvc.yaml")
	if pvc.APIVersion != "v1" || pvc.Kind != "PersistentVolumeClaim" || pvc.Metadata.Name == "" || !slices.Contains(pvc.Spec.AccessModes, "ReadWriteMany") {
		t.Fatalf("data-pvc.yaml: %+v", pvc)
	}
	for _, f := range files {
		name := filepath.Base(f)
		if name == "data-pvc.yaml" {
			continue
		}
		m := readManifest(t, name)
		checkJob(t, name, m, pvc.Metadata.Name)
	}
	load := readManifest(t, "load-shards.yaml")
	n := *load.Spec.Completions
	if *load.Spec.Parallelism != n || *load.Spec.BackoffLimit != 0 {
		t.Errorf("load-shards.yaml: parallelism %d, backoffLimit %d: every shard must run at once (= completions %d), none retried", *load.Spec.Parallelism, *load.Spec.BackoffLimit, n)
	}
	args := strings.Join(load.Spec.Template.Spec.Containers[0].Args, " ")
	for _, want := range []string{fmt.Sprintf("--shard=$(JOB_COMPLETION_INDEX)/%d", n), "--start-at=$(START_AT)", "--records="} {
		if !strings.Contains(args, want) {
			t.Errorf("load-shards.yaml: the shard's arguments lack %q: %s", want, args)
		}
	}
}

// checkJob checks one Job manifest.
func checkJob(t *testing.T, name string, m manifest, claim string) {
	t.Helper()
	s := m.Spec
	ps := s.Template.Spec
	if m.APIVersion != "batch/v1" || m.Kind != "Job" || m.Metadata.Name == "" || s.Completions == nil || s.Parallelism == nil ||
		*s.Parallelism < 1 || *s.Parallelism > *s.Completions || s.BackoffLimit == nil || ps.RestartPolicy != "Never" || len(ps.Containers) != 1 {
		t.Fatalf("%s: not a well-formed Job: %+v", name, m)
	}
	c := ps.Containers[0]
	indexed := strings.Contains(strings.Join(c.Args, " "), "$(JOB_COMPLETION_INDEX)")
	if indexed != (s.CompletionMode == "Indexed") {
		t.Errorf("%s: completionMode %q, but the arguments use the completion index: %v", name, s.CompletionMode, indexed)
	}
	if c.Image == "" || len(c.VolumeMounts) != 1 || len(ps.Volumes) != 1 || ps.Volumes[0].Name != c.VolumeMounts[0].Name ||
		ps.Volumes[0].PVC == nil || ps.Volumes[0].PVC.ClaimName != claim || envOf(c, 0)["DATA"] != c.VolumeMounts[0].MountPath {
		t.Errorf("%s: the container must mount claim %s at $(DATA): %+v, volumes %+v", name, claim, c, ps.Volumes)
	}
	switch {
	case slices.Equal(c.Command, []string{"servecmp"}):
		args := expand(t, c.Args, envOf(c, 0))
		root := newRootCmd(&env{stdout: io.Discard, stderr: io.Discard})
		cmd, rest, err := root.Find(args)
		if err != nil || cmd == root {
			t.Fatalf("%s: %v is no servecmp command: %v", name, args, err)
		}
		if err := cmd.ParseFlags(rest); err != nil {
			t.Errorf("%s: servecmp %s: %v", name, cmd.Name(), err)
		}
	case slices.Equal(c.Command, []string{"/bin/sh", "-c"}) && len(c.Args) == 1:
		if !strings.HasPrefix(strings.TrimSpace(c.Args[0]), "exec servecmp merge ") {
			t.Errorf("%s: the shell runs %q, want exec servecmp merge", name, c.Args[0])
		}
	default:
		t.Errorf("%s: command %v: want servecmp, or /bin/sh -c with one script", name, c.Command)
	}
}

// servecmpOnPath puts a `servecmp` on a PATH of its own that runs this
// test binary as servecmp, and stubs of other commands given as name →
// script body; it returns the PATH.
func servecmpOnPath(t *testing.T, stubs map[string]string) string {
	t.Helper()
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	stubs["servecmp"] = fmt.Sprintf("%s=1 exec %q \"$@\"", asMainEnv, self)
	for name, body := range stubs {
		if err := os.WriteFile(filepath.Join(dir, name), []byte("#!/bin/sh\n"+body+"\n"), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	return dir + string(os.PathListSeparator) + os.Getenv("PATH")
}

// shell runs a shell script (a Job's /bin/sh -c) with env over the
// process's, and fails the test on a non-zero exit.
func shell(t *testing.T, script string, env map[string]string) string {
	t.Helper()
	c := exec.Command("/bin/sh", "-c", script)
	c.Env = os.Environ()
	for k, v := range env {
		c.Env = append(c.Env, k+"="+v)
	}
	var o, e bytes.Buffer
	c.Stdout, c.Stderr = &o, &e
	if err := c.Run(); err != nil {
		t.Fatalf("%s: %v\n%s", script, err, e.String())
	}
	return o.String()
}

// TestDeployLoadFlowLocal runs the load recipe with local processes: the
// Indexed Job's command line for every completion index (against
// serve-sim, starting together), then the merge Job's script; the
// merged result holds every request of the workload.
func TestDeployLoadFlowLocal(t *testing.T) {
	if testing.Short() {
		t.Skip("runs serve-sim and the shards")
	}
	load, merge := readManifest(t, "load-shards.yaml"), readManifest(t, "load-merge.yaml")
	data := t.TempDir()
	runOK(t, "workload", "random", "--num", "200", "--input-len", "16:64", "--output-len", "4:12", "--seed", "5", "--out", filepath.Join(data, "workload.jsonl"))
	c := load.Spec.Template.Spec.Containers[0]
	n := *load.Spec.Completions
	path := servecmpOnPath(t, map[string]string{})
	start := time.Now().Add(4 * time.Second).UTC().Format(time.RFC3339Nano)
	procs := make([]*exec.Cmd, n)
	logs := make([]bytes.Buffer, n)
	url := simServer(t)
	for i := range n {
		vars := envOf(c, i)
		vars["SERVER_URL"], vars["MODEL"], vars["START_AT"], vars["DATA"] = url, "m", start, data
		bin := filepath.Join(strings.SplitN(path, string(os.PathListSeparator), 2)[0], c.Command[0]) // the pod's servecmp
		procs[i] = exec.Command(bin, expand(t, c.Args, vars)...)
		procs[i].Stdout, procs[i].Stderr = io.Discard, &logs[i]
		if err := procs[i].Start(); err != nil {
			t.Fatal(err)
		}
	}
	for i, p := range procs {
		if err := p.Wait(); err != nil {
			t.Fatalf("pod %d: %v\n%s", i, err, logs[i].String())
		}
	}
	mc := merge.Spec.Template.Spec.Containers[0]
	vars := envOf(mc, 0)
	vars["DATA"], vars["PATH"] = data, path
	shell(t, mc.Args[0], vars)
	run := vars["RUN"]
	res := readResult(t, filepath.Join(data, run+".json"))
	if res.Schema != result.Schema || res.Shards == nil || res.Shards.Count != n || res.Summary.RequestsOK != 200 || res.Load.Concurrency != 16*n {
		t.Fatalf("merged: schema %s, shards %+v, %d ok, load %+v", res.Schema, res.Shards, res.Summary.RequestsOK, res.Load)
	}
	if _, err := os.Stat(filepath.Join(data, run+".jsonl")); err != nil {
		t.Error(err)
	}
}

// rankExports copies the two demo exports (two ranks each) into a
// folder as rank-0.sqlite and rank-1.sqlite, as the analysis recipes
// expect them.
func rankExports(t *testing.T) string {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "exports")
	if err := os.Mkdir(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	for i, name := range []string{"vllm-like.sqlite", "sglang-like.sqlite"} {
		b, err := os.ReadFile(filepath.Join("..", "..", "testdata", "demo", name))
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, fmt.Sprintf("rank-%d.sqlite", i)), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// sameAsAllAtOnce checks that the merged report (analyze --format json
// shape) equals analyze of every rank export at once.
func sameAsAllAtOnce(t *testing.T, merged []byte, exports string) {
	t.Helper()
	all := runOK(t, "analyze", "--format", "json", filepath.Join(exports, "rank-0.sqlite"), filepath.Join(exports, "rank-1.sqlite"))
	var a, b map[string]any
	if err := json.Unmarshal(merged, &a); err != nil {
		t.Fatalf("merged report: %v", err)
	}
	if err := json.Unmarshal([]byte(all), &b); err != nil {
		t.Fatal(err)
	}
	if len(a["ranks"].([]any)) != 4 || !reflect.DeepEqual(a, b) {
		t.Errorf("per-rank analyze + merge differs from analyze of all ranks at once:\n%.600s\n%.600s", merged, all)
	}
}

// TestDeployAnalyzeFlowLocal runs the Kubernetes analysis recipe with
// local processes: the Indexed Job's command line per rank, then the
// merge Job's script, whose report equals analyze of all ranks at once.
func TestDeployAnalyzeFlowLocal(t *testing.T) {
	ranks, merge := readManifest(t, "analyze-ranks.yaml"), readManifest(t, "analyze-merge.yaml")
	exports := rankExports(t)
	data := filepath.Dir(exports)
	c := ranks.Spec.Template.Spec.Containers[0]
	for i := range 2 {
		vars := envOf(c, i)
		vars["DATA"] = data
		runOK(t, expand(t, c.Args, vars)...)
	}
	mc := merge.Spec.Template.Spec.Containers[0]
	vars := envOf(mc, 0)
	vars["DATA"], vars["PATH"] = data, servecmpOnPath(t, map[string]string{})
	shell(t, mc.Args[0], vars)
	b, err := os.ReadFile(filepath.Join(data, vars["RUN"]+"-job.json"))
	if err != nil {
		t.Fatal(err)
	}
	sameAsAllAtOnce(t, b, exports)
}

// TestDeploySlurm runs the Slurm recipe under stubs: submit.sh submits
// the array and the merge after it; each array task, run as Slurm would
// with its SLURM_ARRAY_TASK_ID (srun stubbed to log and run its command),
// analyses its rank; the merge script's report equals analyze of all
// ranks at once.
func TestDeploySlurm(t *testing.T) {
	logf := filepath.Join(t.TempDir(), "calls.log")
	path := servecmpOnPath(t, map[string]string{
		// srun: log the call, drop srun's own options, run the command.
		"srun": fmt.Sprintf("echo \"srun $*\" >>%q\nwhile [ \"${1#--}\" != \"$1\" ]; do shift; done\nexec \"$@\"", logf),
		// sbatch --parsable: log the call, answer a job id.
		"sbatch": fmt.Sprintf("echo \"sbatch $*\" >>%q\necho \"4242;cluster\"", logf),
	})
	slurm := filepath.Join(deployDir, "slurm")
	exports := rankExports(t)
	out := filepath.Join(filepath.Dir(exports), "summaries")
	env := map[string]string{"PATH": path, "EXPORTS": exports, "OUT": out}
	shell(t, filepath.Join(slurm, "submit.sh")+" 2", env)
	for i := range 2 {
		env["SLURM_ARRAY_TASK_ID"] = strconv.Itoa(i)
		shell(t, filepath.Join(slurm, "analyze-ranks.sbatch"), env)
	}
	delete(env, "SLURM_ARRAY_TASK_ID")
	shell(t, filepath.Join(slurm, "merge.sbatch"), env)
	calls, err := os.ReadFile(logf)
	if err != nil {
		t.Fatal(err)
	}
	want := []string{
		"sbatch --parsable --export=ALL --array=0-1 " + filepath.Join(slurm, "analyze-ranks.sbatch"),
		"sbatch --parsable --export=ALL --dependency=afterok:4242 " + filepath.Join(slurm, "merge.sbatch"),
		fmt.Sprintf("srun --ntasks=1 servecmp analyze --save %s/rank-0.summary.json %s/rank-0.sqlite", out, exports),
		fmt.Sprintf("srun --ntasks=1 servecmp analyze --save %s/rank-1.summary.json %s/rank-1.sqlite", out, exports),
		fmt.Sprintf("srun --ntasks=1 servecmp merge --format json --save %s/job.summary.json %s/rank-0.summary.json %s/rank-1.summary.json", out, out, out),
		fmt.Sprintf("srun --ntasks=1 servecmp merge %s/job.summary.json", out),
	}
	if got := strings.Split(strings.TrimSpace(string(calls)), "\n"); !slices.Equal(got, want) {
		t.Errorf("the recipe ran:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	b, err := os.ReadFile(filepath.Join(out, "job.json"))
	if err != nil {
		t.Fatal(err)
	}
	sameAsAllAtOnce(t, b, exports)
	c := exec.Command(filepath.Join(slurm, "analyze-ranks.sbatch"))
	c.Env = append(os.Environ(), "PATH="+path)
	if o, err := c.CombinedOutput(); err == nil || !strings.Contains(string(o), "array job") {
		t.Errorf("a task without SLURM_ARRAY_TASK_ID: %v, %s", err, o)
	}
}
