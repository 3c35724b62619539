import FilmCacheKit
import Hummingbird
import Metrics
import Prometheus
import ServiceLifecycle
