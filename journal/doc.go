// Package journal stores one session's records in one bbolt file.
//
// Append buffers a record in memory; Commit writes every buffered record in
// one bbolt Update, which is one fsync: the durable point. The engine
// commits before a process starts, before a model request goes out, when an
// approval request is sent and when a turn ends; everything else rides on the
// next commit. Commits counts the durable commits so tests and benchmarks can
// hold the engine to one per executed call.
//
// Layout inside the file: bucket "records" maps an 8-byte big-endian seq to
// an events.Record envelope; bucket "calls" maps callID NUL seq to nothing,
// so one call's records are a prefix scan; bucket "meta" holds the session
// id, the format version and the last committed seq.
//
// Damage never panics or hangs: before bbolt sees a file, a preflight takes
// the lock, finds the meta page in force and walks every page it reaches
// once, bounds-checked (bbolt itself trusts them, and a damaged pointer can
// fault inside its mmap or send its cursor round a loop). Reads verify every
// record's CRC-32C and seq and stop at the first bad one with a
// *DamagedError naming the file and the last good seq; records missing from
// the end of the tree are caught against the committed seq in "meta". When
// bbolt cannot read on, a raw page scan salvages every intact record that
// continues the sequence.
package journal
