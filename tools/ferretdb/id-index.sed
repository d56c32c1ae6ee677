# FerretDB v1.24.2's SQLite backend creates each collection's unique _id index on the expression
# _ferretdb_sjson->"_id" but filters _id reads, updates and deletes on _ferretdb_sjson->'$._id'. The two extract
# the same value, but SQLite uses an expression index only for the same expression, so every read by _id scanned
# the whole collection (1.5 CPU-ms per read at 1,000 documents, 27 at 20,000: bench/profile/ferretdb-reads.js).
# scripts/tools.sh builds FerretDB with this one-line change (in a patched copy of the module; the module cache is
# left untouched): the filter's expression is written as the index's, so the index serves it.
s|IDColumn = DefaultColumn + "->'\$\._id'"|IDColumn = DefaultColumn + `->"_id"`|
