"""What changed and where it is used. Plain values in, plain values out; nothing here writes.

trees       `ast.parse` once per distinct source in a process
signatures  Param and Signature, read from `ast`
binding     how a call's arguments bind to a signature (Python's rules, simulated)
edits       old vs new signature -> typed Edits
modules     one module read with `ast`: ModuleInfo, its classes and imports
project     one version of the repository: name resolution, which classes are Ops, inherited
            constructors
renames     which vanished class became which new one, from the commit's evidence
changes     which Op classes changed, moved, were renamed or removed -> OpChanges
interfaces  did a workload or helper constructor change (the cheap check on the no-op path)
callsites/  which calls build or call which Op -> CallSites
locate      a module's analyzer, resolving names in the new version (and the old, for names gone)
examples    a call's fix learned from the commit's own edits (old and new calls read as templates)
evidence    what the updated tests say about the new signatures
cases       which values of a benchmark vary across its cases, and whether a dropped one still reaches
            the measurement
alignment   one method's old and new bodies (helpers and bases' constructors inlined) aligned statement by
            statement, and what differs between aligned statements
flow        what a changed constructor's body does with each parameter: renamed, transformed, introduced
            where a literal was, replaced by a constant, folded into a config, or unknown; and its places
"""
