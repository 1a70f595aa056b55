// Package audit holds the plain data of the audit trail: an entry (who did
// what to which organization's people and settings, when, and from where),
// its actor and the kinds of actor, and the type of its actions. It holds
// no rule and does no I/O: the engine writes and reads the trail, and
// names the actions it records.
package audit
