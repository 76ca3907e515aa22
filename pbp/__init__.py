"""pbp: a daemon that runs play-by-post games by email."""
