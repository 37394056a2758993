-- 005: reserved for a migration developed on another branch; migrations are numbered 1..n without gaps, so this
-- placeholder holds its number until that file replaces it. It changes nothing.
SELECT 1;
