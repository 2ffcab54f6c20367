-- A waiter gives up (timed out, cancelled): it leaves its queue, and if its leaving lets another
-- waiter take a free slot (background work that deferred to it), that waiter's head is woken.
-- KEYS: as in queues.lua.  ARGV[1] priority, ARGV[2] queue member, ARGV[3] declared slots, ARGV[4] reserve,
-- ARGV[5] the adaptive limit's floor (0: fixed).
gate_drop(ARGV[1], ARGV[2])
gate_wake(gate_slots(tonumber(ARGV[3]), tonumber(ARGV[5])), tonumber(ARGV[4]))
return 1
