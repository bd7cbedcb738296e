/// The scene of the compositor tests' client (a `vitrined --backend wayland`, 60×40):
/// four coloured quadrants and a small square at (26, 16).
public let compositorClientScene = """
    {"size": [60, 40], "background": "#000000",
     "layers": [
      {"id": "tl", "properties": {"bounds": [0, 0, 30, 20], "position": [15, 10], "backgroundColor": "#ff0000"}},
      {"id": "tr", "properties": {"bounds": [0, 0, 30, 20], "position": [45, 10], "backgroundColor": "#00ff00"}},
      {"id": "bl", "properties": {"bounds": [0, 0, 30, 20], "position": [15, 30], "backgroundColor": "#0000ff"}},
      {"id": "br", "properties": {"bounds": [0, 0, 30, 20], "position": [45, 30], "backgroundColor": "#ffffff"}},
      {"id": "dot", "properties": {"bounds": [0, 0, 8, 8], "position": [30, 20], "backgroundColor": "#ffff00"}}]}
    """
