package enginetest_test

import (
	"testing"
	"time"

	"github.com/docket-engine/docket/engine"
	"github.com/docket-engine/docket/engine/enginetest"
	"github.com/docket-engine/docket/events"
	"github.com/docket-engine/docket/journal"
	"github.com/docket-engine/docket/journal/journaltest"
)

// The twin and the real journal keep the same contract.
func TestMemLogKeepsTheLogContract(t *testing.T) {
	enginetest.CheckLog(t, func(t *testing.T) enginetest.LogUnderTest {
		l := &enginetest.MemLog{}
		return enginetest.LogUnderTest{Log: l, Durable: func() ([]events.Record, error) { return l.Durable(), nil }}
	})
}

func TestJournalKeepsTheLogContract(t *testing.T) {
	enginetest.CheckLog(t, func(t *testing.T) enginetest.LogUnderTest {
		j, err := journal.Create(t.TempDir(), "contract", time.Unix(1_700_000_000, 0))
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() {
			if err := j.Close(); err != nil {
				t.Error(err)
			}
		})
		return enginetest.LogUnderTest{Log: j, Durable: func() ([]events.Record, error) { return journaltest.OnDisk(j.Path()) }}
	})
}

// What is not committed does not survive a crash, in either log.
func TestUncommittedRecordsDoNotSurviveACrash(t *testing.T) {
	tr := events.Transition{CallID: "c1", From: "wantsApproval", Event: "ask", To: "awaitingDecision"}
	at := time.Unix(1_700_000_000, 0)

	mem := &enginetest.MemLog{}
	if _, err := mem.Append(at, "c1", tr); err != nil {
		t.Fatal(err)
	}
	if err := mem.Commit(); err != nil {
		t.Fatal(err)
	}
	if _, err := mem.Append(at, "c1", tr); err != nil {
		t.Fatal(err)
	}
	mem.Crash()

	home := t.TempDir()
	j, err := journal.Create(home, "crash", at)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := j.Append(at, "c1", tr); err != nil {
		t.Fatal(err)
	}
	if err := j.Commit(); err != nil {
		t.Fatal(err)
	}
	if _, err := j.Append(at, "c1", tr); err != nil {
		t.Fatal(err)
	}
	if err := j.Abandon(); err != nil {
		t.Fatal(err)
	}
	onDisk, err := journaltest.OnDisk(j.Path())
	if err != nil {
		t.Fatal(err)
	}
	for name, recs := range map[string][]events.Record{"MemLog": mem.Durable(), "journal": onDisk} {
		if len(recs) != 1 || recs[0].Seq != 1 {
			t.Errorf("%s kept %d records after a crash, want only the committed seq 1", name, len(recs))
		}
	}
	if r, err := mem.Append(at, "c1", tr); err != nil || r.Seq != 2 {
		t.Errorf("MemLog after a crash appends seq %d (%v), want 2", r.Seq, err)
	}
}

func TestScriptedApproverKeepsTheApproverContract(t *testing.T) {
	enginetest.CheckApprover(t, func(_ *testing.T, answers ...events.ReviewDecision) engine.Approver {
		return &enginetest.ScriptedApprover{Answers: answers}
	})
}
