// Package journal stores one session's records in one bbolt file.
//
// Append buffers a record in memory; Commit writes every buffered record in
// one bbolt Update, which is one fsync: the durable point. The engine
// commits before a process starts, before a model request that carries a
// person's words, when an approval request is sent and when a turn ends;
// everything else rides on the next commit (engine/commit.go says why). Commits counts the durable commits so tests and benchmarks can
// hold the engine to one per executed call.
//
// What the journal guarantees (it is the engine's Log; engine.Log states
// the contract and enginetest.CheckLog checks it against this package):
//   - seqs start at 1 and rise by one with no gap; a failed Append takes
//     none, and a reopened journal appends after its last record;
//   - a record reads back byte for byte as Append returned it;
//   - after Commit returns nil every record appended before it survives a
//     kill or a power cut; on error they stay pending and nothing is
//     acknowledged; Scan and a reopened journal never return a record past
//     the last committed seq (Each on the writing handle also yields its
//     buffered records, after the committed ones);
//   - one writer per file: a second Open waits LockTimeout and then fails
//     with *InUseError naming the holder's pid, never hangs;
//   - Append, Commit and the readers are safe for concurrent use;
//   - a damaged or foreign file is an error (*DamagedError,
//     *NotJournalError), never a panic, and Scan still reads every good
//     record.
//
// What it does not do: it interprets no record (that is events' and the
// engine's job), and it commits only when told (Commit, AppendDurable,
// Close).
//
// Layout inside the file: bucket "records" maps an 8-byte big-endian seq to
// an events.Record envelope; bucket "calls" maps callID NUL seq to nothing,
// so one call's records are a prefix scan; bucket "meta" holds the session
// id, the format version and the last committed seq.
//
// Damage never panics or hangs: before bbolt sees a file, a preflight takes
// the lock, finds the meta page in force and checks, bounds-checked, what
// bbolt trusts blindly (bbolt can fault inside its mmap or send its cursor
// round a loop). A writer's preflight reads every page it reaches once; a
// reader's reads every branch page (where a loop would be) and leaves each
// leaf's header to be checked just before a read reaches it, so a reader's
// cost follows what it reads. Reads verify every record's CRC-32C and seq
// and stop at the first bad one with a *DamagedError naming the file and
// the last good seq; records missing from the end of the tree are caught
// against the committed seq in "meta". When bbolt cannot read on, a raw page
// scan salvages every intact record that continues the sequence (Scan), or
// every intact record at all with the gaps listed (ScanAll, for audits).
//
// bbolt falls back, without a word, to the older meta page when the newest
// fails its checksum, dropping the last commit. Open notices (Damage): the
// dropped commit's records are still in the file's pages, and a writer
// commits them back before anything can overwrite them, or refuses with
// *LostCommitError when they cannot all be read, since resuming without
// them could run a command twice. Create fsyncs the directories a new
// journal's name lives in, so a power cut cannot lose the file.
package journal
