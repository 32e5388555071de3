package proto

// Kinds of helper report lines. The setup pipe carries exactly one line,
// ReportLayers or ReportSetupError; the exit pipe at most one, ReportExit,
// ReportExecError or ReportInitError.
const (
	ReportLayers     = "layers"
	ReportSetupError = "setup_error"
	ReportExecError  = "exec_error"
	ReportExit       = "exit"
	ReportInitError  = "init_error"
)

// ReportLine is one JSON line the helper writes on its setup or exit pipe.
type ReportLine struct {
	Kind   string   `json:"kind"`
	Layers []string `json:"layers,omitempty"`
	// Layer names the layer whose setup failed (setup_error).
	Layer string `json:"layer,omitempty"`
	Error string `json:"error,omitempty"`
	// Code is the command's exit code (exit, exec_error).
	Code int `json:"code,omitempty"`
	// Signal is the signal that killed the command (exit).
	Signal int `json:"signal,omitempty"`
}

// Limits is the helper's part of the limits.
type Limits struct {
	CPUSeconds    int64 `json:"cpu_seconds,omitempty"`
	FileSizeBytes int64 `json:"file_size_bytes,omitempty"`
	Processes     int64 `json:"processes,omitempty"`
	// Cgroup is the leaf's layer name once joined ("cgroup-v1:memory,pids").
	Cgroup string `json:"cgroup,omitempty"`
	// CgroupProcs are the files of the leaf the helper joins by writing "0":
	// cgroup.procs on v2, tasks on v1 (see proctree.NewLimits).
	CgroupProcs []string `json:"cgroup_procs,omitempty"`
}
