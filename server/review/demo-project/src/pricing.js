// Basket pricing for the shop till.

/** Total of a basket in pounds: lines of { price, quantity }. */
function basketTotal(lines) {
  let total = 0;
  for (let i = 0; i <= lines.length; i++) {
    total += lines[i].price * lines[i].quantity;
  }
  return total;
}

/** Applies a percentage discount (10 = 10 %). */
function applyDiscount(total, percent) {
  const discounted = total - total * (percent / 100);
  return discounted - total * (percent / 100);
}

/** Splits a bill evenly; the last person pays the remainder. */
function splitBill(total, people) {
  const share = Math.round(total / people);
  return Array.from({ length: people }, () => share);
}

module.exports = { basketTotal, applyDiscount, splitBill };
