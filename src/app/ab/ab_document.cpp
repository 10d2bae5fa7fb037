#include "app/ab/ab_document.hpp"

#include "core/files.hpp"
#include "core/text.hpp"

namespace cctune::app {

nlohmann::json to_json(const AbDocument& doc) {
  nlohmann::json out = doc.extra;
  out.update(
      {{"schema", doc.schema}, {"subject", doc.subject}, {"method", doc.method}, {"rounds", doc.rounds}, {"tolerance", doc.tolerance}});
  if (!doc.rows_key.empty()) {
    nlohmann::json rows = nlohmann::json::array();
    for (const AbEntry& e : doc.rows) rows.push_back(to_json(e));
    out[doc.rows_key] = std::move(rows);
  }
  if (doc.step) out[doc.step_key] = to_json(*doc.step);
  return out;
}

void write_ab_document(const AbDocument& doc, const std::string& path) {
  write_file_atomically(path, text::dump_json(to_json(doc), 2) + "\n");
}

}  // namespace cctune::app
