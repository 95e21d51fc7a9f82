-- Review rooms: the review's own status events become review_status (the agent's status events,
-- which carry a phase, keep their type), the static engine's done event gets the loop fields it
-- lacked, and the job's report event gets the notes it lacked. Rows of other rooms are unchanged.
UPDATE "room_event" SET "type" = 'review_status'
WHERE "room" LIKE 'review:%' AND "type" = 'status' AND "payload" NOT LIKE '%"phase":%';
UPDATE "room_event" SET "payload" = '{"stopReason":"end_turn","iterations":0,"notes":[]}'
WHERE "room" LIKE 'review:%' AND "type" = 'done' AND "payload" NOT LIKE '%"stopReason":%';
UPDATE "room_event" SET "payload" = substr("payload", 1, length("payload") - 1) || ',"notes":[]}'
WHERE "room" LIKE 'review:%' AND "type" = 'report' AND "payload" NOT LIKE '%"notes":%' AND "payload" LIKE '{%}';
