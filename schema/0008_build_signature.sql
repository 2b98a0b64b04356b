-- 0008_build_signature: who signed a build (issue 14 §1). A run skips the install when the phone
-- already has that exact APK — package, versionCode and signature, as `dumpsys package` reports
-- them — so each build keeps the hash of its signers' certificates as dumpsys prints it
-- (Signature.hashCode() in hex; signers joined by ", "). NULL: an unsigned APK, or a build kept
-- before this migration: it matches nothing a phone has, so it is always installed.
ALTER TABLE builds ADD COLUMN signature TEXT;
