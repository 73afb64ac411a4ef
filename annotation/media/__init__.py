"""The one place that runs ffmpeg: probe, proxies, clips, frames, audio, sound views and their cache.
May import `annotation.protocol` only."""
