"""Work that runs beside the reviewer: child processes, the worker pool, the job board and its
events, the memory budget, the model-call ledger and the whole-run guard.
"""
