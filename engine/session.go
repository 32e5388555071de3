package engine

import (
	"context"
	"crypto/sha256"
	"encoding/json"
	"fmt"
	"sync"
	"time"

	"github.com/docket-engine/docket/engine/ctxwindow"
	"github.com/docket-engine/docket/engine/model"
	"github.com/docket-engine/docket/events"
	"github.com/docket-engine/docket/states"
	"github.com/docket-engine/docket/states/policy"
)

// RiskAssessor asks the model how risky a denied command is, for the retry
// prompt. It MUST NOT fail: trouble is reported in the assessment's Error
// field, and the engine journals the assessment as an input (replay reads
// it back instead of asking). It MUST return once ctx is done and MUST NOT
// run the command.
type RiskAssessor interface {
	Assess(ctx context.Context, callID string, command []string, cwd, output string) events.RiskAssessment
}

// Config is everything a session needs. Start records its decision-relevant
// part in the session_started record.
type Config struct {
	SessionID     string
	DocketVersion string
	Home          string // $DOCKET_HOME: where rule amendments are saved
	Cwd           string
	Session       events.SessionConfig
	Settings      []events.Setting
	Plan          events.SandboxPlan
	Rules         []events.RuleSource
	Instructions  string
	// OutputSchema, when set, is a JSON Schema the model's final message
	// must follow (exec --output-schema). It shapes requests only: the
	// recorded responses are what replay needs.
	OutputSchema []byte

	Model    model.Model
	Approver Approver
	Runner   Runner
	Clock    Clock
	// Paths resolves the paths calls would write; nil uses the disk.
	Paths    PathResolver
	Observer Observer
	Tools    []Tool
	Risk     RiskAssessor // nil: no risk assessment
	// Compactor answers compaction requests (model.PurposeCompact); nil
	// uses Model. Replay substitutes the journal's recorded summaries.
	Compactor model.Model
	// Hooks runs the operator's pre_tool and post_tool hooks; nil runs none.
	Hooks Hooks

	ApprovalTimeout time.Duration
	CaptureCap      int
	// Amender saves an approved prefix rule; nil uses the rules package.
	// Replay substitutes one that writes nothing.
	Amender Amender
	// Faults, when set, is told of named points for crash testing.
	Faults Faults
	// Agents opens the journals and models of subagents (spawn_agent); nil
	// sends spawn_agent calls to the Runner (replay's recorded outcomes).
	Agents AgentHost
	// Parent is set for a subagent: the session and call that started it,
	// recorded in session_started. Restore fills it from the journal.
	Parent *events.ParentLink
	// Egress, when set, runs the session's egress proxy (egress.go); nil
	// gives calls no bridge, and a plan that needs one is refused.
	Egress *Egress
}

// Session is one agent session: a conversation, its calls, its grants.
type Session struct {
	cfg      Config
	rec      *recorder
	decider  *Decider
	registry *Registry
	model    model.Model
	approver Approver
	runner   Runner
	observer Observer

	mu       sync.Mutex
	fsm      *states.Pool
	machines map[string]*states.Machine
	restored map[string]states.State // states read from the journal; machines are built on first use
	items    []events.Item
	convHash [32]byte // running hash over items: digest_i = H(digest_{i-1} || item_i)
	hasher   itemHasher
	turns    int
	requests int // model requests so far, across turns
	history  map[string]*callHistory
	specs    []model.ToolSpec
	baseHash [32]byte // model, instructions and tool specs
	pending  *pendingTurn
	// resolved is where each call's paths really lead, by call id then
	// path, as model_response records recorded it.
	resolved map[string]map[string]string
	// callIDs holds the id of every accepted call of the session, so a
	// later response cannot reuse one (see screenCalls).
	callIDs map[string]bool
	// Token accounting (context.go): the context size the last response
	// reported, the conversation length at that point, whether it is
	// known, and whether the near-limit warning was given.
	lastUsed  int64
	usageMark int
	usageOK   bool
	warned    bool
	// itemTokens estimates all of items, markTokens items[:usageMark]:
	// kept as items are added, so a request's status costs what the new
	// items cost, not the whole history (a session whose model reports
	// no usage would otherwise estimate the conversation per request).
	itemTokens, markTokens int64
	// prompt is the user message of the turn under way (or the last
	// one), which an automatic compaction keeps.
	prompt *events.Item
	// spawns numbers the session's spawn_agent calls in the order they
	// were accepted, for subagents.max_children.
	spawns map[string]int
	// permissions is the message of the last policy change, which a
	// compaction keeps (replaceLocked); nil before any.
	permissions *events.Item
	// compactFloor is the context size right after the last compaction:
	// when it is already at the auto-compact limit, compacting again
	// cannot help, and is not tried.
	compactFloor int64
	// procs is the session's account of its long-lived processes.
	procs *procBook
	// egress is the session's egress proxy: Config.Egress's rules, or a
	// switched profile's (SetPermissions); no proxy without either.
	egress *sessionEgress
}

func (s *Session) env() *Env {
	// The policy in force, once /approvals changed it: a subagent starts
	// from it, not from the one the session started with.
	sc := s.cfg.Session
	if ap, _, err := policy.FromConfig(sc); err == nil && ap != s.decider.Approval() {
		sc.ApprovalPolicy = s.decider.Approval().String()
	}
	// And the sandbox in force, once /permissions switched the profile.
	sp, plan := s.decider.Sandbox()
	sc = withSandbox(sc, sp)
	return &Env{Cwd: s.cfg.Cwd, Config: sc, Plan: plan, Decider: s.decider, RealPath: s.realPath,
		SessionID: s.cfg.SessionID, Agents: AgentLimits{Depth: s.depth(), Ordinal: s.spawnOrdinal}, Process: s.procs.lookup}
}

// realPath returns where a call's path really leads, as recorded. A call
// with no recorded resolution (a journal from before they were recorded)
// is resolved now.
func (s *Session) realPath(callID, path string) string {
	s.mu.Lock()
	real, ok := s.resolved[callID][path]
	s.mu.Unlock()
	if ok {
		return real
	}
	return s.cfg.Paths.RealPath(path)
}

// addResolvedLocked keeps the path resolutions of a model response.
func (s *Session) addResolvedLocked(rs []events.ResolvedPath) {
	for _, r := range rs {
		m, ok := s.resolved[r.CallID]
		if !ok {
			m = map[string]string{}
			s.resolved[r.CallID] = m
		}
		m[r.Path] = r.Real
	}
}

// resolvePaths asks the resolver where the paths of a response's calls
// really lead.
func (s *Session) resolvePaths(turnID string, request int, items []events.Item) []events.ResolvedPath {
	var want []events.ResolvedPath
	for _, c := range callsOf(items) {
		tool, ok := s.registry.Lookup(c.Name)
		if !ok {
			continue
		}
		pw, ok := tool.(PathWriter)
		if !ok {
			continue
		}
		for _, p := range pw.WritePaths(c, s.cfg.Cwd) {
			want = append(want, events.ResolvedPath{CallID: c.ID, Path: p})
		}
	}
	if len(want) == 0 {
		return nil
	}
	return s.cfg.Paths.Resolve(turnID, request, want)
}

func build(cfg Config, log Log) (*Session, error) {
	if cfg.Clock == nil {
		cfg.Clock = SystemClock{}
	}
	if cfg.Paths == nil {
		cfg.Paths = DiskPaths{}
	}
	if cfg.Observer == nil {
		cfg.Observer = nopObserver{}
	}
	if cfg.Faults == nil {
		cfg.Faults = noFaults{}
	}
	if cfg.CaptureCap <= 0 {
		cfg.CaptureCap = 1 << 20
	}
	if cfg.Model == nil || cfg.Approver == nil || cfg.Runner == nil {
		return nil, fmt.Errorf("engine: a session needs a model, an approver and a runner")
	}
	reg, err := NewRegistry(cfg.Tools...)
	if err != nil {
		return nil, err
	}
	dec, err := NewDecider(cfg.Session, cfg.Cwd, cfg.Plan, cfg.Rules, cfg.Home, cfg.Amender)
	if err != nil {
		return nil, err
	}
	s := &Session{cfg: cfg, decider: dec, registry: reg, model: cfg.Model, approver: cfg.Approver,
		runner: cfg.Runner, observer: cfg.Observer, fsm: states.NewPool(), machines: map[string]*states.Machine{},
		history: map[string]*callHistory{}, resolved: map[string]map[string]string{}, callIDs: map[string]bool{}, spawns: map[string]int{}, procs: newProcBook()}
	if cfg.Parent != nil {
		// A subagent starts with its parent's session grants and the
		// prefix rules saved during the parent's session.
		dec.Grant(cfg.Parent.Grants)
		for _, p := range cfg.Parent.AllowRules {
			dec.AddAllowRule(p)
		}
	}
	s.rec = newRecorder(log, cfg.Clock, s.onRecord, cfg.Faults)
	s.egress = newSessionEgress(s, cfg.Egress)
	s.specs = reg.Specs()
	base, _ := json.Marshal(struct {
		Model, Instructions string
		Tools               []model.ToolSpec
	}{cfg.Session.Model, cfg.Instructions, s.specs})
	s.baseHash = sha256.Sum256(base)
	return s, nil
}

// Start begins a new session: it records session_started durably.
func Start(cfg Config, log Log) (*Session, error) {
	s, err := build(cfg, log)
	if err != nil {
		return nil, err
	}
	cfg = s.cfg
	ss := events.SessionStarted{
		Version: events.FormatVersion, SessionID: cfg.SessionID, DocketVersion: cfg.DocketVersion,
		StartedAt: cfg.Clock.Now().UnixNano(), Cwd: cfg.Cwd, Config: cfg.Session, Settings: cfg.Settings,
		Rules: cfg.Rules, RulesDigest: RulesDigest(cfg.Rules), Instructions: cfg.Instructions, Plan: cfg.Plan,
		Tools: s.registry.Infos(), Parent: cfg.Parent,
	}
	if cfg.Plan.Egress {
		// The proxy's rules, so that resume and replay serve these and
		// not whatever the configuration says then.
		ss.Network = networkRecord(cfg.Egress)
	}
	if _, err := s.rec.appendDurable("", ss); err != nil {
		return nil, err
	}
	return s, nil
}

// onRecord keeps the in-memory view (machines are moved by the FSM itself)
// and tells the observer about transitions.
func (s *Session) onRecord(r events.Record, body any) {
	if _, nop := s.observer.(nopObserver); nop {
		return // no one to tell: spare the transition's copy on the heap
	}
	tr, ok := body.(events.Transition)
	if !ok {
		return
	}
	s.observer.Notify(Notice{Type: NoticeTransition, SessionID: s.cfg.SessionID, CallID: tr.CallID, Seq: r.Seq, Transition: &tr})
}

func (s *Session) notify(n Notice) {
	n.SessionID = s.cfg.SessionID
	s.observer.Notify(n)
}

// machine returns the state machine of a call, creating it in wantsApproval.
func (s *Session) machine(id string) *states.Machine {
	s.mu.Lock()
	defer s.mu.Unlock()
	if m, ok := s.machines[id]; ok {
		return m
	}
	st, ok := s.restored[id]
	if !ok {
		st = states.WantsApproval
	}
	m := s.fsm.Restore(id, st, s.sinkFor())
	s.machines[id] = m
	return m
}

// CallState returns the current state of a call, if the session knows it.
func (s *Session) CallState(id string) (states.State, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if m, ok := s.machines[id]; ok {
		return m.Current(), true
	}
	st, ok := s.restored[id]
	return st, ok
}

// view returns the conversation without copying it: items are only ever
// appended, so the returned slice stays as it was. It also returns the
// conversation's running hash.
func (s *Session) view() ([]events.Item, [32]byte) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.items[:len(s.items):len(s.items)], s.convHash
}

func (s *Session) addItems(items ...events.Item) {
	s.mu.Lock()
	s.addItemsLocked(items...)
	s.mu.Unlock()
}

// addItemsLocked appends to the conversation and extends its hash chain, so
// a request's digest costs what the new items cost, not the whole history.
func (s *Session) addItemsLocked(items ...events.Item) {
	n := len(s.items)
	s.items = append(s.items, items...)
	for i := n; i < len(s.items); i++ {
		// the conversation's own copy: a pointer to the argument would
		// put the caller's items on the heap
		s.convHash = s.hasher.next(s.convHash, &s.items[i])
	}
	s.itemTokens += ctxwindow.EstimateItems(items)
}

func (s *Session) assessRisk(ctx context.Context, cr *callRun, denied events.ExecOutcome) *events.RiskAssessment {
	if s.cfg.Risk == nil {
		return nil
	}
	ra := s.cfg.Risk.Assess(ctx, cr.call.ID, cr.prep.Command, cr.prep.Cwd, denied.Output)
	ra.CallID = cr.call.ID
	if _, err := s.rec.append(cr.call.ID, ra); err != nil {
		return nil
	}
	if ra.Error != "" {
		return nil
	}
	return &ra
}
