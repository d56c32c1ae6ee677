# FerretDB v1.24.2 inserts an `insert` command's documents in batches of 100 (its --batch-size). When a batch fails
# it retries that batch's documents one by one and, for an ordered insert, stops at the first duplicate with a
# `break` that leaves only the one-by-one loop: the outer loop goes on with the next batch, so documents after the
# failed one are stored although the command was ordered (MongoDB stops at the first error). The audit writer
# inserts up to 200 hash-chained rows ordered and relinks everything after the reported error; the rows FerretDB
# stored anyway kept their old positions and the relinked ones went after them, leaving a gap in the chain (CI,
# e2e/tests/audit/audit-faults.e2e.test.ts after a nats-server restart redelivered an already stored event).
# This change ends the outer loop too, as MongoDB does; libs/db/test/ordered-insert.int.test.ts fails without it.
/Code:    int(handlererrors.ErrDuplicateKeyInsert),/,/break/ s|^\([[:space:]]*\)break$|\1done = true\n\1break|
