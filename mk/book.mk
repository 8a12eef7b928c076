# Master's opening book (docs/ENGINE.md "Opening book"): deep searches on the PC,
# committed (firmware/tables/VARIANT.book), sent to /tables/ by `make deploy`.
# Not part of `make test` (kalah: 1,646 searches of 100,000 nodes, ~23 min of a core).
#   make book                          kalah, one worker
#   make book BOOK_ARGS="--workers 2"
#   make book-verify
.PHONY: book book-verify
book: setup
	$(PY) -m host_tools.command.cli book build $(BOOK_ARGS)
book-verify: setup
	$(PY) -m host_tools.command.cli book verify $(BOOK_ARGS)
